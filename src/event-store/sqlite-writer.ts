import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

/**
 * The embedded store's writer: a worker thread with its own connection that runs every write
 * transaction. A commit waits for fsync (`synchronous = FULL`, ~0.5-2 ms here, more under load)
 * and, every ~1,000 pages, for a WAL checkpoint (once 1.35 s): on the main thread that stalled
 * every request, relay start and delivery of the process (docs/benchmarks.md § Session 8).
 * A thread that dies fails what it had in hand; the next write starts a new one.
 */
export interface SqliteWriter {
  call<T>(op: 'append' | 'removeBefore' | 'truncate', args: Record<string, unknown>): Promise<T>;
  close(): Promise<void>;
}

interface Pending { resolve: (v: unknown) => void; reject: (e: unknown) => void }

/** The thread's error, with SQLite's code (`SQLITE_BUSY`, …) kept. */
const errorOf = (e: { message: string; code?: unknown }) => Object.assign(new Error(e.message), e.code === undefined ? {} : { code: e.code });

export const startSqliteWriter = (file: string): SqliteWriter => {
  let worker: Worker | undefined;
  let closing = false;
  let nextId = 0;
  const pending = new Map<number, Pending>();

  const failAll = (error: unknown) => {
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  };
  const spawn = () => {
    const w = new Worker(join(__dirname, 'sqlite-writer-thread.js'), { workerData: { file } });
    w.on('message', (m: { id: number; ok: boolean; result?: unknown; error?: { message: string; code?: unknown } }) => {
      const p = pending.get(m.id);
      pending.delete(m.id);
      // Idle, it must not keep the process alive; closing, it must, until it has exited.
      if (pending.size === 0 && !closing) w.unref();
      if (m.ok) p?.resolve(m.result); else p?.reject(errorOf(m.error!));
    });
    w.on('error', (e) => { if (worker === w) worker = undefined; failAll(e); });
    w.on('exit', (code) => {
      if (worker === w) worker = undefined;
      failAll(new Error(`the event store's writer thread exited (${code})`));
    });
    return w;
  };
  const send = <T>(message: Record<string, unknown>) => new Promise<T>((resolve, reject) => {
    worker ??= spawn();
    const id = nextId++;
    pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
    // Held open only while it has work: an idle store never keeps the process alive.
    worker.ref();
    worker.postMessage({ ...message, id });
  });

  // Started now, not at the first write: its memory (a V8 isolate, ~10-20 MB) is part of the
  // process from the start, and the first write does not wait for it to load.
  worker = spawn();
  worker.unref();
  return {
    call: (op, args) => send({ ...args, op }),
    close: async () => {
      const w = worker;
      if (!w) return;
      closing = true;
      const exited = new Promise((resolve) => w.once('exit', resolve));
      await send({ op: 'close' }).catch(() => undefined);
      await exited;
    },
  };
};
