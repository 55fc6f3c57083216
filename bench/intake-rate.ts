import autocannon from 'autocannon';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchStores, startBenchPostgres } from './postgres';
import { startService } from './server';

const SECONDS = Number(process.env.BENCH_INTAKE_RATE_S ?? 10);
const CONNECTIONS = 50;

interface Rate {
  store: string;
  accepted: number;
  perSecond: number;
  p50: number;
  p99: number;
  other: number;
}

/** Signals accepted (202, stored) per second by one API process, 50 connections, each signal a new id matching one trigger. */
const acceptRate = async (store: string, env: Record<string, string>, temporalAddress: string): Promise<Rate> => {
  const dir = mkdtempSync(join(tmpdir(), `at-bench-intake-${store}-`));
  const configFile = join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify({ allow_private_targets: true }));
  const api = await startService(
    { ...env, DATA_DIR: join(dir, 'data'), ACTION_TRIGGERS_CONFIG: configFile, TEMPORAL_ADDRESS: temporalAddress },
    'api',
  );
  try {
    await fetch(`${api.url}/api/action-triggers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        config_signals: [{ signal: 'post_save' }],
        content_types: [{ app_label: 'bench', model_name: 'rate' }],
        active: true,
        webhooks: [{ url: 'http://127.0.0.1:9/never-sent', http_method: 'POST' }],
        payload: { n: '{{ instance.n }}' },
      }),
    });
    let n = 0;
    const signal = () =>
      JSON.stringify({ id: `${store}-${++n}`, signal: 'post_save', app_label: 'bench', model_name: 'rate', instance: { n } });
    const r = await autocannon({
      url: `${api.url}/api/signals`,
      connections: CONNECTIONS,
      duration: SECONDS,
      requests: [{ method: 'POST', headers: { 'content-type': 'application/json' }, setupRequest: (req) => ({ ...req, body: signal() }) }],
    });
    return {
      store,
      accepted: r['2xx'],
      perSecond: r['2xx'] / SECONDS,
      p50: r.latency.p50,
      p99: r.latency.p99,
      other: r.non2xx + r.errors + r.timeouts,
    };
  } finally {
    await api.stop();
    rmSync(dir, { recursive: true, force: true });
  }
};

/**
 * How fast intake accepts on each store (BENCH_STORES), in one run; Temporal is up and the relay
 * starts each dispatch (no worker: nothing is delivered, the same for both stores).
 */
export const benchIntakeRate = async (temporalAddress: string) => {
  const rates: Rate[] = [];
  for (const store of benchStores()) {
    if (store === 'sqlite') rates.push(await acceptRate(store, {}, temporalAddress));
    else {
      const pg = await startBenchPostgres();
      try {
        rates.push(await acceptRate(store, pg.env, temporalAddress));
      } finally {
        pg.stop();
      }
    }
  }
  const sqlite = rates.find((r) => r.store === 'sqlite');
  console.log(
    `\nintake rate: one API process, ${CONNECTIONS} connections, ${SECONDS} s per store, each signal stored (fsync) before its 202`,
  );
  console.log('| store | accepted/s | p50 / p99 ms | other answers | ÷ SQLite |');
  console.log('|---|---:|---:|---:|---:|');
  for (const r of rates) {
    console.log(
      `| ${r.store} | ${r.perSecond.toFixed(0)} | ${r.p50} / ${r.p99} | ${r.other} | ${sqlite ? (r.perSecond / sqlite.perSecond).toFixed(2) : '-'} |`,
    );
  }
};
