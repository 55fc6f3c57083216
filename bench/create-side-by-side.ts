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
import { execSync, spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { benchDefinition } from './seed';
import { startBenchTemporal } from './server';

/** `<checkout>` or `<checkout>@<node flags>`: the same checkout with V8 flags of its own (e.g. `@--single-threaded-gc`). */
const runs = (process.env.DIRS ?? '').split(',').filter(Boolean).map((d) => {
  const [dir, flags] = d.split('@');
  return { dir: dir!, flags: flags ? flags.split(' ') : [], label: d };
});
const rounds = Number(process.env.ROUNDS ?? 3);
const seconds = Number(process.env.D ?? 8);
const warmSeconds = Number(process.env.WARM ?? 2);
const procs = process.env.PROCS ?? '1';

const processTree = (pid: number): number[] => {
  try { return [pid, ...execSync(`pgrep -P ${pid}`).toString().trim().split('\n').filter(Boolean).map(Number).flatMap(processTree)]; } catch { return [pid]; }
};
/** CPU seconds (user + system) the processes used so far. */
const cpuSeconds = (pids: number[]) => pids.reduce((sum, pid) => {
  try { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' '); return sum + Number(f[11]) + Number(f[12]); } catch { return sum; }
}, 0) / 100;

/** CPU seconds per thread, keyed by process role and thread name (THREADS=1 prints them per create). */
const threadCpu = (pids: number[]) => {
  const out = new Map<string, number>();
  pids.forEach((pid, i) => {
    let tids: string[] = [];
    try { tids = readdirSync(`/proc/${pid}/task`); } catch { return; }
    for (const tid of tids) {
      try {
        const [comm, rest] = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split('(')[1]!.split(') ');
        const f = rest!.split(' ');
        const key = `${i === 0 ? 'primary' : 'api'}/${tid === String(pid) ? 'main' : comm}`;
        out.set(key, (out.get(key) ?? 0) + (Number(f[11]) + Number(f[12])) / 100);
      } catch { /* gone */ }
    }
  });
  return out;
};

/** What a service said last: printed when a run stalls (a process that died, a start that hung). */
const TAIL_CHARS = 16 * 1024;

const startApi = (dir: string, flags: string[], env: Record<string, string>) => new Promise<{ url: string; pid: number; tail: () => string; stop: () => Promise<void> }>((resolve, reject) => {
  const built = join(dir, 'dist/src/main.js');
  const entry = existsSync(built) ? [built] : ['-r', 'ts-node/register/transpile-only', join(dir, 'src/main.ts')];
  const profile = process.env.PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PROF}/${basename(dir)}`] : [];
  const child = spawn(process.execPath, [...flags, ...profile, ...entry, '--role=api'], {
    cwd: dir, env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', API_PROCESSES: procs, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const onData = (b: Buffer) => {
    out += b.toString();
    const url = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(out)?.[1];
    if (!url || (out.match(/listening/g) ?? []).length < Number(procs)) return;
    child.stdout!.off('data', onData);
    child.stderr!.off('data', onData);
    const keep = (b: Buffer) => { out = (out + b.toString()).slice(-TAIL_CHARS); };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    resolve({ url, pid: child.pid!, tail: () => out.slice(-TAIL_CHARS), stop: () => new Promise((r) => { child.once('exit', () => r()); child.kill('SIGTERM'); }) });
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  child.once('exit', (code) => reject(new Error(`${dir} exited (${code}): ${out}`)));
});

const main = async () => {
  if (runs.length === 0) throw new Error('DIRS=<checkout>,<checkout>…');
  const temporal = await startBenchTemporal();
  const body = JSON.stringify(benchDefinition(1));
  const post = (url: string, duration: number) => autocannon({ url, method: 'POST', headers: { 'content-type': 'application/json' }, body, connections: 50, duration });
  try {
    for (let round = 0; round < rounds; round++) {
      for (const { dir, flags, label } of runs) {
        const data = mkdtempSync(join(tmpdir(), 'at-side-by-side-'));
        const api = await startApi(dir, flags, { DATA_DIR: data, TEMPORAL_ADDRESS: temporal.address });
        const url = `${api.url}/api/action-triggers`;
        await post(url, warmSeconds);
        const pids = processTree(api.pid);
        const cpu0 = cpuSeconds(pids);
        const threads0 = threadCpu(pids);
        const t0 = process.hrtime.bigint() / 1000n;
        const r = await post(url, seconds);
        if (process.env.PROF) appendFileSync(join(process.env.PROF, 'windows.txt'), `${basename(dir)} ${t0} ${process.hrtime.bigint() / 1000n} ${r.requests.total}\n`);
        const cpuUs = ((cpuSeconds(pids) - cpu0) / r.requests.total) * 1e6;
        if (process.env.THREADS) {
          const perCreate = [...threadCpu(pids)].map(([k, v]) => [k, ((v - (threads0.get(k) ?? 0)) / r.requests.total) * 1e6] as const).filter(([, v]) => v >= 1);
          console.log(`    ${label} threads, µs per create: ${perCreate.sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ')}`);
        }
        console.log(`| ${round + 1} | ${label} | ${r.requests.average.toFixed(0)} | ${r.latency.p99} | ${cpuUs.toFixed(0)} | ${r.non2xx + r.errors} |`);
        if (r.requests.total === 0 || r.timeouts > 0) {
          console.log(`    ${label} stalled (${r.requests.total} answered, ${r.timeouts} timed out); processes ${processTree(api.pid).join(' ')}; its last output:\n${api.tail()}`);
        }
        await api.stop();
        rmSync(data, { recursive: true, force: true });
      }
    }
  } finally {
    await temporal.stop();
  }
};
console.log(`create trigger, API_PROCESSES=${procs}, 50 connections, ${seconds} s per run after ${warmSeconds} s of warm-up\n\n| round | checkout | req/s | p99 ms | CPU µs per create | errors |\n|---|---|---:|---:|---:|---:|`);
main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
