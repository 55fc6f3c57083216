/**
 * The API role of any checkout (this one, or a `git worktree` of an older commit), started as its
 * own process tree, and the CPU that tree uses: what the comparisons across builds share.
 */
import { execSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { cpuSeconds as processCpuSeconds } from './temporal-costs';

/** What a service said last: printed when a run stalls (a process that died, a start that hung). */
const TAIL_CHARS = 16 * 1024;

export interface CheckoutApi {
  url: string;
  pid: number;
  tail: () => string;
  stop: () => Promise<void>;
}

/**
 * Starts `dir`'s API role with `procs` API processes and resolves once all of them listen. A
 * checkout with a build (dist/src/main.js) runs it; one without runs src/main.ts through ts-node.
 * `profileDir`: V8 CPU profiles go to `<profileDir>/<checkout's folder name>`.
 */
export const startCheckoutApi = (
  dir: string,
  opts: { env: Record<string, string>; procs: number; flags?: string[]; profileDir?: string },
) =>
  new Promise<CheckoutApi>((resolve, reject) => {
    const built = join(dir, 'dist/src/main.js');
    const entry = existsSync(built) ? [built] : ['-r', 'ts-node/register/transpile-only', join(dir, 'src/main.ts')];
    const profile = opts.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.profileDir}/${basename(dir)}`] : [];
    const child = spawn(process.execPath, [...(opts.flags ?? []), ...profile, ...entry, '--role=api'], {
      cwd: dir,
      env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', API_PROCESSES: String(opts.procs), ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const onData = (b: Buffer) => {
      out += b.toString();
      const url = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(out)?.[1];
      if (!url || (out.match(/listening/g) ?? []).length < opts.procs) return;
      child.stdout!.off('data', onData);
      child.stderr!.off('data', onData);
      const keep = (b: Buffer) => {
        out = (out + b.toString()).slice(-TAIL_CHARS);
      };
      child.stdout!.on('data', keep);
      child.stderr!.on('data', keep);
      resolve({
        url,
        pid: child.pid!,
        tail: () => out.slice(-TAIL_CHARS),
        stop: () =>
          new Promise((r) => {
            child.once('exit', () => r());
            child.kill('SIGTERM');
          }),
      });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${dir} exited (${code}): ${out}`)));
  });

/** A process and all its descendants (an API role's primary and its API processes). */
export const processTree = (pid: number): number[] => {
  try {
    return [pid, ...execSync(`pgrep -P ${pid}`).toString().trim().split('\n').filter(Boolean).map(Number).flatMap(processTree)];
  } catch {
    return [pid];
  }
};

/** CPU seconds (user + system) the processes used so far, from /proc. */
export const cpuSeconds = (pids: number[]) =>
  pids.reduce((sum, pid) => {
    try {
      return sum + processCpuSeconds(pid);
    } catch {
      return sum; /* it ended */
    }
  }, 0);
