import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../src/kernel/logger';
import { installSdkLogging } from '../src/worker';
import { startReceiver } from '../test/support/receiver';
import { rssMb, startBenchTemporal, startService } from './server';

const SIGNALS = Number(process.env.BENCH_SIGNALS ?? 1000);
const WEBHOOKS = Number(process.env.BENCH_WEBHOOKS ?? 50);
const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 30);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `npm run bench -- fan-out` (send-once under a large fan-out): SIGNALS signals × one trigger with WEBHOOKS
 * webhooks, with no fault anywhere. Every delivery must be sent once: requests received equal
 * distinct webhook ids. Reports the service's RSS before, at the end, and after IDLE_S idle.
 * Baseline: the deliveries/s of the same run's raw count over its own duration.
 */
export const benchFanOut = async () => {
  installSdkLogging(silentLogger, 'error');
  const dir = mkdtempSync(join(tmpdir(), 'at-bench-fanout-'));
  const temporal = await startBenchTemporal();
  const rx = await startReceiver();
  const configFile = join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify({ allow_private_targets: true }));
  const service = await startService({ DATA_DIR: dir, TEMPORAL_ADDRESS: temporal.address, ACTION_TRIGGERS_CONFIG: configFile });
  const post = (path: string, body: unknown) => fetch(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  try {
    await post('/api/action-triggers', { config_signals: [{ signal: 'post_save' }], content_types: [{ app_label: 'bench', model_name: 'order' }], active: true,
      webhooks: Array.from({ length: WEBHOOKS }, (_, i) => ({ url: rx.url(`/w${i}`), http_method: 'POST' })) });
    const before = rssMb(service.child.pid!);
    const started = Date.now();
    for (let i = 0; i < SIGNALS; i += 100) {
      const batch = Array.from({ length: Math.min(100, SIGNALS - i) }, (_, j) => ({ signal: 'post_save', app_label: 'bench', model_name: 'order', instance: { n: i + j } }));
      const res = await post('/api/signals', batch);
      if (res.status !== 202) throw new Error(`signals refused: ${res.status} ${await res.text()}`);
    }
    const expected = SIGNALS * WEBHOOKS;
    const distinct = () => new Set(rx.received.map((r) => r.headers['webhook-id'])).size;
    let peak = before;
    while (distinct() < expected && Date.now() - started < 30 * 60_000) {
      peak = Math.max(peak, rssMb(service.child.pid!));
      await sleep(500);
    }
    const seconds = (Date.now() - started) / 1000;
    await sleep(IDLE_S * 1000);
    const idle = rssMb(service.child.pid!);
    console.log(`\nFan-out benchmark (${SIGNALS} signals × ${WEBHOOKS} webhooks, no faults; service = API + worker in one process)\n`);
    console.log('| measure | value |\n|---|---:|');
    console.log(`| deliveries expected | ${expected} |`);
    console.log(`| requests received | ${rx.received.length} |`);
    console.log(`| distinct webhook ids | ${distinct()} |`);
    console.log(`| duplicates | ${rx.received.length - distinct()} |`);
    console.log(`| deliveries/s | ${Math.round(distinct() / seconds)} |`);
    console.log(`| RSS MB before / peak / after ${IDLE_S} s idle | ${before.toFixed(0)} / ${peak.toFixed(0)} / ${idle.toFixed(0)} |`);
  } finally {
    await service.stop();
    await rx.close();
    await temporal.stop();
    rmSync(dir, { recursive: true, force: true });
  }
};
