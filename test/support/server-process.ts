import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { compiledMain } from '../../src/kernel/compiled-main';

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
}

const ROOT = join(__dirname, '..', '..');

/**
 * Starts the compiled service (dist/src/main.js, as `npm start` does) as its own process on a
 * free port (loopback unless HOST says otherwise); resolves when it listens. `prefix` runs it
 * through another command, e.g. `ip netns exec <host>` (which execs it: the child is the service).
 */
export const startServerProcess = (
  env: Record<string, string>,
  timeoutMs = 30000,
  args: string[] = [],
  prefix: string[] = [],
): Promise<ServerProcess> =>
  new Promise((resolve, reject) => {
    const [command, ...before] = [...prefix, process.execPath];
    const child = spawn(command!, [...before, compiledMain(), ...args], {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start:\n${out}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /"url":"(http:\/\/[\d.]+:\d+)"/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1]!, child, output: () => out });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${out}`));
    });
  });

export const stopServerProcess = (p: ServerProcess, signal: NodeJS.Signals = 'SIGTERM') =>
  new Promise<number | null>((resolve) => {
    if (p.child.exitCode !== null || p.child.signalCode !== null) return resolve(p.child.exitCode);
    p.child.removeAllListeners('exit');
    p.child.once('exit', (code) => resolve(code));
    p.child.kill(signal);
  });
