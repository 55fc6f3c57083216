import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../src/kernel/logger';
import { findTemporalCli } from '../src/temporal/cli';
import { DevServer, startDevServer } from '../src/temporal/dev-server';
import { freePort } from '../test/support/free-port';
import { startReceiver } from '../test/support/receiver';
import { killProcess, startWorkerProcess } from '../test/support/worker-process';
import { startService } from './server';
import { benchIntakeRate } from './intake-rate';
import { pct } from './stats';

const OUTAGE_S = Number(process.env.BENCH_OUTAGE_S ?? 30);
const RATE = Number(process.env.BENCH_RATE ?? 50);

/**
 * `npm run bench -- intake`: first how fast intake accepts on each store (intake-rate.ts); then a
 * `--role=api` process and a worker on a Temporal dev server with its state on disk. RATE signals/s for OUTAGE_S with Temporal up (the baseline), then the
 * same with Temporal stopped: how fast each signal is accepted (202) in both; then Temporal
 * restarted: how long the backlog takes to drain, and whether every webhook arrived.
 */
export const benchIntake = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'at-bench-intake-'));
  const port = await freePort();
  const cliPath = findTemporalCli(process.env.TEMPORAL_CLI_PATH);
  if (!cliPath) throw new Error('no Temporal CLI (bash scripts/install-tools.sh)');
  const startTemporal = () =>
    startDevServer({ cliPath, dbFile: join(dir, 'temporal.sqlite'), port, uiPort: undefined, namespace: 'default', log: silentLogger });
  let temporal: DevServer = await startTemporal();
  await benchIntakeRate(temporal.address).catch(async (e: unknown) => {
    await temporal.stop();
    throw e;
  });
  const rx = await startReceiver();
  const configFile = join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify({ allow_private_targets: true }));
  const env = { DATA_DIR: join(dir, 'data'), ACTION_TRIGGERS_CONFIG: configFile, TEMPORAL_ADDRESS: temporal.address };
  const api = await startService(env, 'api');
  const worker = await startWorkerProcess(env).catch(async (e: unknown) => {
    await api.stop();
    await temporal.stop();
    await rx.close();
    throw e;
  });
  const post = (path: string, body: unknown) =>
    fetch(`${api.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await post('/api/action-triggers', {
    config_signals: [{ signal: 'post_save' }],
    content_types: [{ app_label: 'bench', model_name: 'intake' }],
    active: true,
    webhooks: [{ url: rx.url('/intake'), http_method: 'POST' }],
    payload: { n: '{{ instance.n }}' },
  });

  /** RATE signals/s for OUTAGE_S; the 202 latency of each, and when each was accepted (by n). */
  const emit = async (phase: string) => {
    const latencies: number[] = [];
    const acceptedAt = new Map<string, number>();
    const statuses: Record<number, number> = {};
    const t0 = Date.now();
    const pending: Promise<void>[] = [];
    for (let i = 0; i < OUTAGE_S * RATE; i++) {
      const due = t0 + (i * 1000) / RATE;
      if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
      const n = `${phase}-${i}`;
      pending.push(
        (async () => {
          const started = Date.now();
          const res = await post('/api/signals', { id: n, signal: 'post_save', app_label: 'bench', model_name: 'intake', instance: { n } });
          await res.arrayBuffer();
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
          latencies.push(Date.now() - started);
          acceptedAt.set(n, Date.now());
        })(),
      );
    }
    await Promise.all(pending);
    return { latencies, acceptedAt, statuses };
  };
  const received = (phase: string) => rx.on('/intake').filter((r) => (JSON.parse(r.body) as { n: string }).n.startsWith(`${phase}-`));
  const waitForAll = async (phase: string, want: number, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (received(phase).length < want && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  };
  try {
    const progress = (what: string) =>
      console.error(`intake: ${what} (${received('up').length + received('down').length} webhooks so far)`);
    const up = await emit('up');
    progress('baseline sent');
    await waitForAll('up', up.acceptedAt.size, 120_000);
    progress('baseline received');
    const upReceipt = received('up').map((r) => r.at - up.acceptedAt.get((JSON.parse(r.body) as { n: string }).n)!);
    await temporal.stop();
    progress('Temporal stopped');
    const down = await emit('down');
    progress('outage sent');
    const restarted = Date.now();
    temporal = await startTemporal();
    progress('Temporal restarted');
    await waitForAll('down', down.acceptedAt.size, 600_000);
    const drainedS = (Date.now() - restarted) / 1000;
    const got = received('down');
    const distinct = new Set(got.map((r) => r.headers['webhook-id'])).size;
    console.log(`\nintake: ${RATE} signals/s for ${OUTAGE_S} s each, --role=api + a worker, Temporal dev server on disk`);
    console.log('| phase | answers | 202 p50 / p99 ms | accept → receipt p50 / p99 ms |');
    console.log('|---|---|---:|---:|');
    console.log(
      `| Temporal up (baseline) | ${JSON.stringify(up.statuses)} | ${pct(up.latencies, 50)} / ${pct(up.latencies, 99)} | ${pct(upReceipt, 50)} / ${pct(upReceipt, 99)} |`,
    );
    console.log(
      `| Temporal stopped | ${JSON.stringify(down.statuses)} | ${pct(down.latencies, 50)} / ${pct(down.latencies, 99)} | (queued) |`,
    );
    console.log(
      `\nafter the restart: ${distinct} of ${down.acceptedAt.size} webhooks arrived (distinct webhook-id; ${got.length} requests) in ${drainedS.toFixed(1)} s ` +
        `(${(distinct / drainedS).toFixed(0)}/s drained, including Temporal's start-up)`,
    );
  } finally {
    await api.stop();
    await killProcess(worker);
    await temporal.stop();
    await rx.close();
  }
};
