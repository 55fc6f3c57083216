import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

const BIN = join(__dirname, '..', '..', 'dist', 'cjs', 'bin', 'relay.js');

/** The package's built `action-triggers-relay` as a process of its own; `lines` are its JSON log lines. */
export const startRelayProcess = (env: Record<string, string>) => {
  const child: ChildProcess = spawn(process.execPath, [BIN], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Array<Record<string, unknown>> = [];
  let rest = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const text = rest + chunk.toString();
    const parts = text.split('\n');
    rest = parts.pop() ?? '';
    for (const line of parts) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    lines,
    stderr: () => stderr,
    exited,
    /** Rows it reported sent. */
    sent: () => lines.filter((l) => l.message === 'sent').reduce((n, l) => n + Number(l.sent), 0),
    kill: async (signal: NodeJS.Signals) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
};
