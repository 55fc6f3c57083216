import { ChildProcess, spawn } from 'node:child_process';
import { Connection } from '@temporalio/client';
import { Logger } from '../kernel/logger';

export interface DevServerOptions {
  cliPath: string;
  /** undefined keeps the server's state in memory (tests). */
  dbFile: string | undefined;
  port: number;
  /** undefined runs it headless (no UI). */
  uiPort: number | undefined;
  namespace: string;
  log: Logger;
  /** Serve Prometheus metrics on this port (benchmarks read the server's counters there). */
  metricsPort?: number;
  /** More dynamic config, `key: JSON value`, after ours. */
  dynamicConfig?: Record<string, unknown>;
}

/** The dev server's garbage-collection target unless GOGC is set (see startDevServer). */
export const DEV_SERVER_GOGC = '400';

export interface DevServer {
  address: string;
  pid?: number;
  stop(): Promise<void>;
}

const reachable = async (address: string) => {
  try {
    const c = await Connection.connect({ address, connectTimeout: 1000 });
    await c.workflowService.getSystemInfo({});
    await c.close();
    return true;
  } catch {
    return false;
  }
};

/** What the server wrote to stderr: its first and last 4,000 characters (the reason comes first, a panic's trace after). */
const stderrKept = (child: ChildProcess) => {
  let head = '';
  let tail = '';
  child.stderr?.on('data', (b: Buffer) => {
    const text = b.toString();
    const room = 4000 - head.length;
    head += text.slice(0, room);
    if (text.length > room) tail = (tail + text.slice(Math.max(room, 0))).slice(-4000);
  });
  return () => (tail ? `${head}\n…\n${tail}` : head);
};

/**
 * Spawns the server and waits until it answers: the running child, or, when it exits first,
 * what it wrote to stderr.
 */
const launch = async (cliPath: string, args: string[], address: string): Promise<ChildProcess | string> => {
  // Go collects garbage each time its heap doubles (GOGC=100): at 50 dispatches/s every ~3 s, each
  // 75-180 ms on one of the 2 cores, and the Go runtime was ~30 % of the server's CPU in a profile.
  // GOGC=400 (a heap up to 5 × the live data, ~85 MB after a bench run) cut its CPU per dispatch
  // ~8 % (docs/benchmarks.md § The Temporal dev server's GOGC). A GOGC set by the caller wins.
  const child = spawn(cliPath, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { GOGC: DEV_SERVER_GOGC, ...process.env } });
  const stderr = stderrKept(child);
  const deadline = Date.now() + 60_000;
  while (!(await reachable(address))) {
    if (child.exitCode !== null) return `exit code ${child.exitCode}: ${stderr()}`;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the Temporal dev server did not answer within 60s: ${stderr()}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return child;
};

/**
 * Starts `temporal server start-dev` with its state in a SQLite file, and waits until it
 * answers. A dev server already answering on the port (left by an earlier run) is reused.
 */
export const startDevServer = async (o: DevServerOptions): Promise<DevServer> => {
  const address = `127.0.0.1:${o.port}`;
  if (await reachable(address)) {
    o.log.info('reusing the Temporal dev server already on the port', { address });
    return { address, stop: async () => undefined };
  }
  // On disk, SQLite's default rollback journal with a full sync per write held the server near
  // 10 workflows/s here; WAL with normal sync survives a crash of the server (not of the machine).
  const onDisk = o.dbFile
    ? ['--db-filename', o.dbFile, '--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=normal']
    : [];
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(o.port),
    ...onDisk,
    '--namespace',
    o.namespace,
    '--log-level',
    'warn',
    ...(o.uiPort === undefined ? ['--headless'] : ['--ui-port', String(o.uiPort)]),
    // A worker that schedules an activity may run it at once, without a round trip through matching.
    '--dynamic-config-value',
    'system.enableActivityEagerExecution=true',
    '--dynamic-config-value',
    'system.enableEagerWorkflowStart=true',
    ...Object.entries(o.dynamicConfig ?? {}).flatMap(([k, v]) => ['--dynamic-config-value', `${k}=${JSON.stringify(v)}`]),
    ...(o.metricsPort === undefined ? [] : ['--metrics-port', String(o.metricsPort)]),
  ];
  let child = await launch(o.cliPath, args, address);
  if (typeof child === 'string') {
    // The server picks its internal ports itself; another process may take one before it binds
    // it, and it then exits during start-up (a Go panic). A second start picks them again.
    o.log.warn('the Temporal dev server exited while starting; starting it once more', { address, stderr: child });
    child = await launch(o.cliPath, args, address);
    if (typeof child === 'string') throw new Error(`the Temporal dev server exited twice while starting: ${child}`);
  }
  const server = child;
  o.log.info('Temporal dev server started', { address, ui: o.uiPort === undefined ? 'off' : `http://127.0.0.1:${o.uiPort}`, db: o.dbFile });
  return {
    address,
    pid: server.pid,
    stop: () =>
      new Promise<void>((resolve) => {
        if (server.exitCode !== null) return resolve();
        server.once('exit', () => resolve());
        server.kill('SIGTERM');
        setTimeout(() => server.kill('SIGKILL'), 10_000).unref();
      }),
  };
};
