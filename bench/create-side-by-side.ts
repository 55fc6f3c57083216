/**
 * Trigger creation in several checkouts, alternating in one run (this machine's figures drift 2×
 * within minutes; only alternating rounds compare). Each round starts each checkout's API role on
 * an empty store, warms it for WARM seconds (2), then POSTs for D seconds with 50 connections; CPU
 * is the service's processes' own (from /proc), per request. A longer WARM leaves V8's optimizing
 * compiler out of the timed part (it still compiles 3-5 s into a run): steady state, not start-up.
 *
 *   DIRS=/path/a,/path/b[@<node flags>] ROUNDS=3 D=8 [WARM=2] PROCS=1|2 npx ts-node --transpile-only bench/create-side-by-side.ts
 *
 * A checkout with a build (dist/src/main.js) runs it; one without runs src/main.ts through ts-node.
 * PROF=<dir>: each service writes V8 CPU profiles there; windows.txt says when each run was timed.
 * THREADS=1: also prints each thread's CPU per create (main, writer and checkpoint threads, V8's helpers).
 */
import autocannon from 'autocannon';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { benchDefinition } from './seed';
import { startBenchTemporal } from './server';
import { cpuSeconds, processTree, startCheckoutApi } from './checkout-api';
import { threadCpu } from './thread-cpu';

/** `<checkout>` or `<checkout>@<node flags>`: the same checkout with V8 flags of its own (e.g. `@--single-threaded-gc`). */
const runs = (process.env.DIRS ?? '')
  .split(',')
  .filter(Boolean)
  .map((d) => {
    const [dir, flags] = d.split('@');
    return { dir: dir!, flags: flags ? flags.split(' ') : [], label: d };
  });
const rounds = Number(process.env.ROUNDS ?? 3);
const seconds = Number(process.env.D ?? 8);
const warmSeconds = Number(process.env.WARM ?? 2);
const procs = process.env.PROCS ?? '1';

/** CPU seconds per thread, keyed by process role and thread name (THREADS=1 prints them per create). */
const threadCpuByRole = (pids: number[]) => {
  const out = new Map<string, number>();
  pids.forEach((pid, i) => {
    let threads: ReturnType<typeof threadCpu>;
    try {
      threads = threadCpu(pid);
    } catch {
      return; /* it ended */
    }
    for (const [tid, { name, seconds }] of threads) {
      const key = `${i === 0 ? 'primary' : 'api'}/${tid === String(pid) ? 'main' : name}`;
      out.set(key, (out.get(key) ?? 0) + seconds);
    }
  });
  return out;
};

const main = async () => {
  if (runs.length === 0) throw new Error('DIRS=<checkout>,<checkout>…');
  const temporal = await startBenchTemporal();
  const body = JSON.stringify(benchDefinition(1));
  const post = (url: string, duration: number) =>
    autocannon({ url, method: 'POST', headers: { 'content-type': 'application/json' }, body, connections: 50, duration });
  try {
    for (let round = 0; round < rounds; round++) {
      for (const { dir, flags, label } of runs) {
        const data = mkdtempSync(join(tmpdir(), 'at-side-by-side-'));
        const api = await startCheckoutApi(dir, {
          flags,
          procs: Number(procs),
          profileDir: process.env.PROF,
          env: { DATA_DIR: data, TEMPORAL_ADDRESS: temporal.address },
        });
        const url = `${api.url}/api/action-triggers`;
        await post(url, warmSeconds);
        const pids = processTree(api.pid);
        const cpu0 = cpuSeconds(pids);
        const threads0 = threadCpuByRole(pids);
        const t0 = process.hrtime.bigint() / 1000n;
        const r = await post(url, seconds);
        if (process.env.PROF)
          appendFileSync(
            join(process.env.PROF, 'windows.txt'),
            `${basename(dir)} ${t0} ${process.hrtime.bigint() / 1000n} ${r.requests.total}\n`,
          );
        const cpuUs = ((cpuSeconds(pids) - cpu0) / r.requests.total) * 1e6;
        if (process.env.THREADS) {
          const perCreate = [...threadCpuByRole(pids)]
            .map(([k, v]) => [k, ((v - (threads0.get(k) ?? 0)) / r.requests.total) * 1e6] as const)
            .filter(([, v]) => v >= 1);
          console.log(
            `    ${label} threads, µs per create: ${perCreate
              .sort((a, b) => b[1] - a[1])
              .map(([k, v]) => `${k} ${v.toFixed(0)}`)
              .join(', ')}`,
          );
        }
        console.log(
          `| ${round + 1} | ${label} | ${r.requests.average.toFixed(0)} | ${r.latency.p99} | ${cpuUs.toFixed(0)} | ${r.non2xx + r.errors} |`,
        );
        if (r.requests.total === 0 || r.timeouts > 0) {
          console.log(
            `    ${label} stalled (${r.requests.total} answered, ${r.timeouts} timed out); processes ${processTree(api.pid).join(' ')}; its last output:\n${api.tail()}`,
          );
        }
        await api.stop();
        rmSync(data, { recursive: true, force: true });
      }
    }
  } finally {
    await temporal.stop();
  }
};
console.log(
  `create trigger, API_PROCESSES=${procs}, 50 connections, ${seconds} s per run after ${warmSeconds} s of warm-up\n\n| round | checkout | req/s | p99 ms | CPU µs per create | errors |\n|---|---|---:|---:|---:|---:|`,
);
main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
