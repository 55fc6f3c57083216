import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReceiver } from '../test/support/receiver';
import { startBenchTemporal, startService } from './server';
import { cpuSeconds } from './temporal-costs';
import { threadCpu, threadRows } from './thread-cpu';

const RATE = Number(process.env.BENCH_RATE ?? 50);
const PACED_S = Number(process.env.BENCH_PACED_S ?? 30);
const WARM_S = Number(process.env.BENCH_WARM_S ?? 5);
const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN; };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `npm run bench -- paced`: only the paced part of `dispatch` (one trigger, one webhook,
 * `BENCH_RATE` signals/s for `BENCH_PACED_S` s after `BENCH_WARM_S` s of warm-up), with the
 * service's CPU per delivery split by thread (main, workflow thread, V8 helpers, Temporal core).
 * Prints `paced: measuring, service pid <pid>` when the measured window starts, to attach
 * `perf record -p <pid>` (see bench/README.md § Profiling the service).
 */
export const benchPaced = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'at-bench-paced-'));
  const temporal = await startBenchTemporal();
  const rx = await startReceiver();
  const configFile = join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify({ allow_private_targets: true }));
  const service = await startService({ DATA_DIR: dir, TEMPORAL_ADDRESS: temporal.address, ACTION_TRIGGERS_CONFIG: configFile });
  const pid = service.child.pid!;
  const api = (path: string, body: unknown) => fetch(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  try {
    await api('/api/action-triggers', { config_signals: [{ signal: 'post_save' }], content_types: [{ app_label: 'bench', model_name: 'paced' }], active: true,
      webhooks: [{ url: rx.url('/paced'), http_method: 'POST' }] });
    const run = async (seconds: number, tag: string) => {
      const acceptedAt = new Map<string, number>();
      const count = Math.round(RATE * seconds);
      const before = rx.on('/paced').length;
      const cpu0 = { temporal: cpuSeconds(temporal.pid!), service: cpuSeconds(pid) };
      const t0 = Date.now();
      const sends: Promise<void>[] = [];
      for (let i = 0; i < count; i++) {
        const due = t0 + (i * 1000) / RATE;
        if (due > Date.now()) await sleep(due - Date.now());
        sends.push(api('/api/signals', { signal: 'post_save', app_label: 'bench', model_name: 'paced', instance: { id: `${tag}-${i}` } })
          .then(async (res) => { acceptedAt.set(((await res.json()) as { id: string }).id, Date.now()); }));
      }
      await Promise.all(sends);
      await rx.waitFor(() => rx.on('/paced').length >= before + count, 120_000).catch(() => undefined);
      const got = rx.on('/paced').slice(before);
      const perDelivery = (s0: number, s1: number) => ((s1 - s0) * 1000) / got.length;
      const latencies = got.map((r) => r.at - (acceptedAt.get(String(r.headers['webhook-id']).split('.')[0]!) ?? r.at));
      return {
        received: got.length, sent: count, p50: pct(latencies, 50), p99: pct(latencies, 99),
        cpu: { temporal: perDelivery(cpu0.temporal, cpuSeconds(temporal.pid!)), service: perDelivery(cpu0.service, cpuSeconds(pid)) },
      };
    };
    await run(WARM_S, 'warm');
    const load = (await import('node:os')).loadavg()[0]!;
    console.log(`paced: measuring, service pid ${pid}`);
    const threads0 = threadCpu(pid);
    const r = await run(PACED_S, 'paced');
    const rows = threadRows(pid, threads0, threadCpu(pid), r.received);
    console.log(`\nPaced dispatch at ${RATE} signals/s for ${PACED_S} s (load average ${load.toFixed(1)} at start)\n`);
    console.log('| measure | value |');
    console.log('|---|---:|');
    console.log(`| received / sent | ${r.received} / ${r.sent} |`);
    console.log(`| accept→receipt p50 / p99 ms | ${r.p50} / ${r.p99} |`);
    console.log(`| CPU per delivery: Temporal server / service, ms | ${r.cpu.temporal.toFixed(2)} / ${r.cpu.service.toFixed(2)} |`);
    for (const row of rows) console.log(`| service thread ${row.label}, ms per delivery | ${row.ms.toFixed(2)} |`);
  } finally {
    await service.stop();
    await rx.close();
    await temporal.stop();
    rmSync(dir, { recursive: true, force: true });
  }
};
