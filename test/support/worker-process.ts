import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { compiledMain } from '../../src/kernel/compiled-main';

const ROOT = join(__dirname, '..', '..');

/** A worker process, and its last 20,000 characters of output (kept while it runs). */
export type WorkerProcess = ChildProcess & { output: () => string };

/** Runs the compiled service with `--role=worker` as its own process (as `npm run worker` does; `prefix` as for startServerProcess); resolves when it polls. */
export const startWorkerProcess = (env: Record<string, string>, timeoutMs = 60_000, prefix: string[] = []): Promise<WorkerProcess> =>
  new Promise((resolve, reject) => {
    const [command, ...before] = [...prefix, process.execPath];
    const child = spawn(command!, [...before, compiledMain(), '--role=worker'], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`worker did not start:\n${out}`));
    }, timeoutMs);
    const onData = (b: Buffer) => {
      out = (out + b.toString()).slice(-20_000);
      if (out.includes('Temporal worker running')) {
        clearTimeout(timer);
        resolve(Object.assign(child, { output: () => out }));
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited (${code}):\n${out}`));
    });
  });

export const killProcess = (child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL') =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.kill(signal);
  });
