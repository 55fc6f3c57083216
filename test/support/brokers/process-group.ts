import { ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';

/** The repository root, where `.tools/` (scripts/install-tools.sh) lives. */
export const ROOT = join(__dirname, '..', '..', '..');

/**
 * Starts a server as the leader of its own process group (so one kill ends it and whatever it
 * forked), with its output in `<dir>/<name>.log` for when a start fails.
 */
export const spawnServer = (name: string, dir: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess => {
  mkdirSync(dir, { recursive: true });
  const log = openSync(join(dir, `${name}.log`), 'a');
  const child = spawn(command, args, { cwd: dir, env: { ...process.env, ...env }, stdio: ['ignore', log, log], detached: true });
  closeSync(log);
  child.on('error', () => {
    /* reported by waitUntil through exitCode */
  });
  child.unref();
  return child;
};

/** Polls `answers` until true; fails early when the server exited, and after `timeoutMs`. */
export const waitUntil = async (name: string, dir: string, child: ChildProcess, answers: () => Promise<boolean>, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await answers())) {
    if (child.exitCode !== null || child.pid === undefined) {
      throw new Error(
        `${name} exited with ${child.exitCode} (log in ${join(dir, `${name}.log`)}; installed? bash scripts/install-tools.sh)`,
      );
    }
    if (Date.now() > deadline) {
      killGroup(child.pid);
      throw new Error(`${name} did not answer within ${timeoutMs / 1000}s (log in ${join(dir, `${name}.log`)})`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
};

/** Runs a command to its end (a setup step), failing with its log when it fails. */
export const runToEnd = (name: string, dir: string, command: string, args: string[]) =>
  new Promise<void>((resolve, reject) => {
    const child = spawnServer(name, dir, command, args);
    child.ref(); // waited for: keeps Node running until it ends
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${name} exited with ${code} (log in ${join(dir, `${name}.log`)})`)),
    );
    child.on('error', reject);
  });

/** Ends a server hard, with everything in its process group. */
export const killGroup = (pgid: number) => {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    /* already gone */
  }
};
