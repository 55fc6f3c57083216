import type { Receiver } from '../test/support/receiver';
import { jsonPoster } from './post';
import { startBenchStack } from './server';
import { slowestStages } from './slowest';
import { cpuSeconds } from './temporal-costs';
import { threadCpu, threadRows } from './thread-cpu';
import { median, pct } from './stats';

const RATE = Number(process.env.BENCH_RATE ?? 50);
const PACED_S = Number(process.env.BENCH_PACED_S ?? 30);
const WARM_S = Number(process.env.BENCH_WARM_S ?? 5);
/** `BENCH_SLOWEST=<n>`: where the n slowest deliveries spent their time (from their histories). */
const SLOWEST = Number(process.env.BENCH_SLOWEST ?? 0);
/** `BENCH_REPEAT=<n>`: n measured windows one after another (this machine's noise shows in their spread). */
const REPEAT = Math.max(1, Number(process.env.BENCH_REPEAT ?? 1));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
type Post = ReturnType<typeof jsonPoster>['post'];

/**
 * One measured window of paced load on a running stack: `rate` signals/s of `bench.<model>` for
 * `seconds`, each sent as its due time comes, then every delivery to `path` awaited (2 min at most).
 * Gives what arrived (with each delivery's signal id), accept→receipt p50/p99, and the CPU ms per
 * delivery of the Temporal server, the service and this process over the window and its tail.
 */
export const pacedWindow =
  (o: { api: Post; rx: Receiver; temporalPid: number; servicePid: number; model: string; path: string; rate: number }) =>
  async (seconds: number, tag: string) => {
    const { api, rx, path, rate } = o;
    const acceptedAt = new Map<string, number>();
    const count = Math.round(rate * seconds);
    const before = rx.count(path);
    const cpu0 = { temporal: cpuSeconds(o.temporalPid), service: cpuSeconds(o.servicePid), bench: cpuSeconds(process.pid) };
    const t0 = Date.now();
    const sends: Promise<void>[] = [];
    for (let i = 0; i < count; i++) {
      const due = t0 + (i * 1000) / rate;
      if (due > Date.now()) await sleep(due - Date.now());
      sends.push(
        api('/api/signals', { signal: 'post_save', app_label: 'bench', model_name: o.model, instance: { id: `${tag}-${i}` } }).then(
          async (res) => {
            acceptedAt.set(((await res.json()) as { id: string }).id, Date.now());
          },
        ),
      );
    }
    await Promise.all(sends);
    await rx.waitFor(() => rx.count(path) >= before + count, 120_000).catch(() => undefined);
    const got = rx.on(path).slice(before);
    const perDelivery = (s0: number, s1: number) => ((s1 - s0) * 1000) / got.length;
    const delivered = got.map((r) => {
      const id = String(r.headers['webhook-id']).split('.')[0]!;
      return { id, acceptedAt: acceptedAt.get(id) ?? r.at, receivedAt: r.at };
    });
    const latencies = delivered.map((d) => d.receivedAt - d.acceptedAt);
    return {
      delivered,
      received: got.length,
      sent: count,
      p50: pct(latencies, 50),
      p99: pct(latencies, 99),
      cpu: {
        temporal: perDelivery(cpu0.temporal, cpuSeconds(o.temporalPid)),
        service: perDelivery(cpu0.service, cpuSeconds(o.servicePid)),
        bench: perDelivery(cpu0.bench, cpuSeconds(process.pid)),
      },
    };
  };

/**
 * `npm run bench -- paced`: only the paced part of `dispatch` (one trigger, one webhook,
 * `BENCH_RATE` signals/s for `BENCH_PACED_S` s after `BENCH_WARM_S` s of warm-up), with the
 * service's CPU per delivery split by thread (main, workflow thread, V8 helpers, Temporal core).
 * Prints `paced: measuring, service pid <pid>` when the measured window starts, to attach
 * `perf record -p <pid>` (see bench/README.md § Profiling the service).
 */
export const benchPaced = async () => {
  const stack = await startBenchStack('paced');
  const { temporal, rx, service } = stack;
  const pid = service.child.pid!;
  const poster = jsonPoster(service.url);
  const api = poster.post;
  try {
    await api('/api/action-triggers', {
      config_signals: [{ signal: 'post_save' }],
      content_types: [{ app_label: 'bench', model_name: 'paced' }],
      active: true,
      webhooks: [{ url: rx.url('/paced'), http_method: 'POST' }],
    });
    const run = pacedWindow({ api, rx, temporalPid: temporal.pid!, servicePid: pid, model: 'paced', path: '/paced', rate: RATE });
    await run(WARM_S, 'warm');
    const load = (await import('node:os')).loadavg()[0]!;
    console.log(`paced: measuring, service pid ${pid}`);
    const threads0 = threadCpu(pid);
    const runs = [];
    for (let n = 1; n <= REPEAT; n++) runs.push(await run(PACED_S, `paced${n}`));
    const received = runs.reduce((sum, r) => sum + r.received, 0);
    const rows = threadRows(pid, threads0, threadCpu(pid), received);
    console.log(
      `\nPaced dispatch at ${RATE} signals/s, ${REPEAT} × ${PACED_S} s after ${WARM_S} s of warm-up (load average ${load.toFixed(1)} at start)\n`,
    );
    console.log(
      '| run | received / sent | accept→receipt p50 / p99 ms | CPU per delivery ms: Temporal server / service / this process (load, receiver) |',
    );
    console.log('|---:|---:|---:|---:|');
    runs.forEach((r, i) =>
      console.log(
        `| ${i + 1} | ${r.received} / ${r.sent} | ${r.p50} / ${r.p99} | ${r.cpu.temporal.toFixed(2)} / ${r.cpu.service.toFixed(2)} / ${r.cpu.bench.toFixed(2)} |`,
      ),
    );
    if (REPEAT > 1) console.log(`| median | | ${median(runs.map((r) => r.p50))} / ${median(runs.map((r) => r.p99))} | |`);
    console.log('\n| service thread, all runs | ms per delivery |\n|---|---:|');
    for (const row of rows) console.log(`| ${row.label} | ${row.ms.toFixed(2)} |`);
    const last = runs.at(-1)!;
    if (SLOWEST > 0)
      console.log(
        `\nThe ${SLOWEST} slowest deliveries of run ${REPEAT}, ms\n\n${(await slowestStages(temporal.address, last.delivered, SLOWEST)).join('\n')}`,
      );
  } finally {
    await poster.close();
    await stack.stop();
  }
};
