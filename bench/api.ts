import autocannon from 'autocannon';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchDefinition, seedTriggers } from './seed';
import { startBaseline, startBenchTemporal, startService, waitForListening } from './server';
import { benchStores, startBenchPostgres } from './postgres';
import { benchCreateAlongside, compareDirs } from './create-alongside';

const CONNECTIONS = 50;
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
/** Stored triggers the scenarios read (BENCH_TRIGGERS: fewer for a smoke run). */
const TRIGGERS = Number(process.env.BENCH_TRIGGERS ?? 10_000);
/** Untimed seconds of each scenario's own request before its timed run (BENCH_WARM_S). */
const WARM_S = Number(process.env.BENCH_WARM_S ?? 3);

interface Figures {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  ok: number;
}

/**
 * One scenario: WARM_S untimed, then DURATION_S timed. Without the warm-up a scenario's figure
 * includes V8 compiling its path (the first seconds after a start, or after the previous
 * scenario's different requests), which differs between builds by more than the builds do.
 * `ok` counts both parts' 2xx answers (the triggers a create scenario stored).
 */
const run = async (name: string, opts: autocannon.Options): Promise<Figures> => {
  const warm = WARM_S > 0 ? (await autocannon({ connections: CONNECTIONS, duration: WARM_S, ...opts }))['2xx'] : 0;
  const r = await autocannon({ connections: CONNECTIONS, duration: DURATION_S, ...opts });
  return {
    name,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
    ok: r['2xx'] + warm,
  };
};

/**
 * Get, list, filtered list and create against one service; `label` names its process count, `stored`
 * the triggers in the store when the scenarios start (PostgreSQL's second run also holds the first one's creates).
 */
const scenarios = async (url: string, ids: string[], label: string, stored: number): Promise<Figures[]> => {
  const body = JSON.stringify(benchDefinition(1));
  let n = 0;
  return [
    await run(`get one trigger ${label}`, {
      url,
      requests: [{ setupRequest: (req) => ({ ...req, path: `/api/action-triggers/${ids[(n++ * 7919) % ids.length]}` }) }],
    }),
    await run(`list (limit 100) ${label}`, { url: `${url}/api/action-triggers?limit=100` }),
    await run(`filtered list (signal, app_label, active; limit 100) ${label}`, {
      url: `${url}/api/action-triggers?signal=post_delete&app_label=crm&active=true&limit=100`,
    }),
    // The admin's list: a page deep in the list (cursor at the middle id), and ?q= text search:
    // one that fills its page early, one that matches nothing (a scan of all 10,000).
    await run(`list page from the middle (cursor; limit 50) ${label}`, {
      url: `${url}/api/action-triggers?limit=50&cursor=${Buffer.from(ids[Math.floor(ids.length / 2)]!).toString('base64url')}`,
    }),
    await run(`search q=hook/99 (limit 50) ${label}`, { url: `${url}/api/action-triggers?q=hook%2F99&limit=50` }),
    await run(`search q matching nothing (scans all ${stored.toLocaleString('en')}) ${label}`, {
      url: `${url}/api/action-triggers?q=no-such-hook&limit=50`,
    }),
    await run(`create trigger ${label}`, {
      url: `${url}/api/action-triggers`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    }),
  ];
};

/**
 * `npm run bench -- api`: the API role (`npm run api`), 10,000 stored triggers, 50 connections,
 * against bare node and bare express; once as one process, once with API_PROCESSES=2 (one per core);
 * then one process again with `metrics.enabled: false`, for the cost of metrics in the same run;
 * then (BENCH_STORES, default both) one and two processes on a PostgreSQL store, with their
 * ratios to SQLite's; then, with BENCH_COMPARE_DIRS, creation side by side with other builds.
 */
export const benchApi = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'at-bench-api-'));
  // Seeded once; each service gets its own copy, so that every one starts with the same triggers
  // stored (a create scenario adds tens of thousands, which later scans would otherwise pay for).
  const seeded = join(dir, 'seeded');
  mkdirSync(seeded);
  const ids = await seedTriggers(seeded, TRIGGERS);
  const copyOfSeed = (name: string) => {
    const data = join(dir, name);
    cpSync(seeded, data, { recursive: true });
    return data;
  };
  const temporal = await startBenchTemporal();
  let service = await startService({ DATA_DIR: copyOfSeed('one'), TEMPORAL_ADDRESS: temporal.address }, 'api');
  const sample = await (await fetch(`${service.url}/api/action-triggers/${ids[0]}`)).text();
  const baseline = await startBaseline('node', sample);
  const expressBaseline = await startBaseline('express', sample);
  const results: Figures[] = [];
  try {
    results.push(await run('baseline: bare node:http, same JSON', { url: baseline.url }));
    results.push(await run('baseline: express 5, one route, same JSON', { url: `${expressBaseline.url}/api/action-triggers/${ids[0]}` }));
    results.push(...(await scenarios(service.url, ids, '(1 process)', ids.length)));
    await service.stop();
    service = await startService({ DATA_DIR: copyOfSeed('two'), TEMPORAL_ADDRESS: temporal.address, API_PROCESSES: '2' }, 'api');
    await waitForListening(service, 2);
    results.push(...(await scenarios(service.url, ids, '(API_PROCESSES=2)', ids.length)));
    await service.stop();
    const off = join(dir, 'metrics-off.json');
    writeFileSync(off, JSON.stringify({ metrics: { enabled: false } }));
    service = await startService(
      { DATA_DIR: copyOfSeed('metrics-off'), TEMPORAL_ADDRESS: temporal.address, ACTION_TRIGGERS_CONFIG: off },
      'api',
    );
    results.push(...(await scenarios(service.url, ids, '(1 process, metrics off)', ids.length)));
    await service.stop();
    if (benchStores().includes('postgres')) results.push(...(await onPostgres(temporal.address)));
    printTables(results);
    if (compareDirs().length > 0) await benchCreateAlongside(temporal.address, DURATION_S);
  } finally {
    await service.stop();
    await baseline.stop();
    await expressBaseline.stop();
    await temporal.stop();
    rmSync(dir, { recursive: true, force: true });
  }
};

/** The same scenarios with the store on PostgreSQL (seeded alike; each API role's read model built from it at start). */
const onPostgres = async (temporalAddress: string): Promise<Figures[]> => {
  const pg = await startBenchPostgres();
  const dir = mkdtempSync(join(tmpdir(), 'at-bench-api-pg-'));
  const results: Figures[] = [];
  let service: Awaited<ReturnType<typeof startService>> | undefined;
  try {
    const store = await pg.openStore();
    const ids = await seedTriggers(store, TRIGGERS);
    await store.close();
    let stored = ids.length;
    service = await startService({ ...pg.env, DATA_DIR: join(dir, '1'), TEMPORAL_ADDRESS: temporalAddress }, 'api');
    results.push(...(await scenarios(service.url, ids, '(1 process, PostgreSQL)', stored)));
    stored += results.at(-1)!.ok;
    await service.stop();
    service = await startService({ ...pg.env, DATA_DIR: join(dir, '2'), TEMPORAL_ADDRESS: temporalAddress, API_PROCESSES: '2' }, 'api');
    await waitForListening(service, 2);
    results.push(...(await scenarios(service.url, ids, '(API_PROCESSES=2, PostgreSQL)', stored)));
  } finally {
    await service?.stop();
    pg.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
};

const printTables = (results: Figures[]) => {
  const base = results[0]!.rps;
  const framework = results[1]!.rps;
  console.log(
    `\nAPI benchmark: ${CONNECTIONS} connections, ${DURATION_S}s each, ${TRIGGERS.toLocaleString('en')} stored triggers, loopback\n`,
  );
  console.log('| scenario | req/s | × node | × express | p50 ms | p99 ms | errors | non-2xx |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const f of results) {
    console.log(
      `| ${f.name} | ${f.rps.toFixed(0)} | ${(f.rps / base).toFixed(2)} | ${(f.rps / framework).toFixed(2)} | ${f.p50} | ${f.p99} | ${f.errors} | ${f.non2xx} |`,
    );
  }
  console.log('\n| scenario, one process | req/s metrics on ÷ off |');
  console.log('|---|---:|');
  for (const on of results.filter((f) => f.name.endsWith('(1 process)'))) {
    const off = results.find((f) => f.name === on.name.replace('(1 process)', '(1 process, metrics off)'));
    if (off) console.log(`| ${on.name.replace(' (1 process)', '')} | ${(on.rps / off.rps).toFixed(3)} |`);
  }
  const onPg = results.filter((f) => f.name.endsWith(', PostgreSQL)'));
  if (onPg.length === 0) return;
  console.log('\n| scenario | req/s PostgreSQL ÷ SQLite |');
  console.log('|---|---:|');
  for (const pg of onPg) {
    // The scan's name counts the triggers stored by then, which the two runs' creates made differ.
    const key = (name: string) => name.replace(/scans all [\d,]+/, 'scans all');
    const sqlite = results.find((f) => key(f.name) === key(pg.name.replace(', PostgreSQL)', ')')));
    if (sqlite) console.log(`| ${sqlite.name} | ${(pg.rps / sqlite.rps).toFixed(2)} |`);
  }
};
