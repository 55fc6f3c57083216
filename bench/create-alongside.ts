/**
 * The api suite's comparison of builds, with BENCH_COMPARE_DIRS=<checkout>[,<checkout>…] (each a
 * built checkout, say a `git worktree` of an older commit): trigger creation in this checkout and
 * in each other one, in alternating rounds of one run. This machine's speed drifts 10–45 % within
 * minutes, so two runs of the suite, one per build, do not compare; rounds side by side do.
 *
 * Each round starts each build's API role (API_PROCESSES=2) on an empty store, creates 1,000
 * triggers (untimed), then times two windows of the same POSTs back to back, 50 connections:
 * "just started" (V8 is still compiling the create path) and "steady" (right after it).
 */
import autocannon from 'autocannon';
import { execSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { benchDefinition } from './seed';
import { cpuSeconds, processTree, startCheckoutApi } from './checkout-api';
import { median } from './stats';

const ROOT = resolve(__dirname, '..');
const ROUNDS = Number(process.env.BENCH_COMPARE_ROUNDS ?? 3);
/** Triggers each build creates untimed before its windows (BENCH_COMPARE_STORED: fewer for a smoke run). */
const STORED_FIRST = Number(process.env.BENCH_COMPARE_STORED ?? 1_000);
const CONNECTIONS = 50;

export const compareDirs = () =>
  (process.env.BENCH_COMPARE_DIRS ?? '')
    .split(',')
    .filter(Boolean)
    .map((d) => resolve(d));

interface Window {
  rps: number;
  p99: number;
  cpuUs: number;
  failed: number;
}

/** `<path> (<commit>)`, so a table says which builds it compared. */
const label = (dir: string) => {
  let commit = '';
  try {
    commit = ` (${execSync('git describe --always --dirty', { cwd: dir, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim()})`;
  } catch {
    /* not a git checkout */
  }
  return `${dir === ROOT ? 'this checkout' : dir}${commit}`;
};

const round = async (dir: string, temporalAddress: string, seconds: number): Promise<[Window, Window]> => {
  const data = mkdtempSync(join(tmpdir(), 'at-bench-alongside-'));
  const api = await startCheckoutApi(dir, { procs: 2, env: { DATA_DIR: data, TEMPORAL_ADDRESS: temporalAddress } });
  try {
    const body = JSON.stringify(benchDefinition(1));
    const post = (opts: Partial<autocannon.Options>) =>
      autocannon({
        url: `${api.url}/api/action-triggers`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        connections: CONNECTIONS,
        ...opts,
      });
    const seeded = await post({ amount: STORED_FIRST });
    if (seeded['2xx'] !== STORED_FIRST)
      throw new Error(`${dir}: ${seeded['2xx']} of ${STORED_FIRST} creates answered 2xx; its last output:\n${api.tail()}`);
    const timed = async (): Promise<Window> => {
      const pids = processTree(api.pid);
      const cpu0 = cpuSeconds(pids);
      const r = await post({ duration: seconds });
      return {
        rps: r.requests.average,
        p99: r.latency.p99,
        cpuUs: ((cpuSeconds(pids) - cpu0) / Math.max(1, r.requests.total)) * 1e6,
        failed: r.errors + r.timeouts + r.non2xx,
      };
    };
    return [await timed(), await timed()];
  } finally {
    await api.stop();
    rmSync(data, { recursive: true, force: true });
  }
};

/** Runs the rounds (this checkout first in each) and prints each window, then this build ÷ each other per round. */
export const benchCreateAlongside = async (temporalAddress: string, seconds: number) => {
  const dirs = [ROOT, ...compareDirs()];
  const names = dirs.map(label);
  const windows = dirs.map((): Array<[Window, Window]> => []);
  console.log(
    `\nCreate trigger, builds side by side: API_PROCESSES=2, ${CONNECTIONS} connections, ${seconds}s per window after ${STORED_FIRST.toLocaleString('en')} untimed creates, ${ROUNDS} alternating rounds\n`,
  );
  console.log('| round | build | req/s just started | req/s steady | p99 ms steady | CPU µs per create steady | failed |');
  console.log('|---|---|---:|---:|---:|---:|---:|');
  for (let r = 1; r <= ROUNDS; r++) {
    for (const [i, dir] of dirs.entries()) {
      const [first, steady] = await round(dir, temporalAddress, seconds);
      windows[i]!.push([first, steady]);
      console.log(
        `| ${r} | ${names[i]} | ${first.rps.toFixed(0)} | ${steady.rps.toFixed(0)} | ${steady.p99} | ${steady.cpuUs.toFixed(0)} | ${first.failed + steady.failed} |`,
      );
    }
  }
  console.log('\n| this checkout ÷ build | just started, per round | median | steady, per round | median |');
  console.log('|---|---|---:|---|---:|');
  for (let i = 1; i < dirs.length; i++) {
    const ratios = (w: 0 | 1) => windows[i]!.map((other, r) => windows[0]![r]![w].rps / other[w].rps);
    const [first, steady] = [ratios(0), ratios(1)];
    console.log(
      `| ${names[i]} | ${first.map((x) => x.toFixed(2)).join(', ')} | ${median(first).toFixed(2)} | ${steady.map((x) => x.toFixed(2)).join(', ')} | ${median(steady).toFixed(2)} |`,
    );
  }
};
