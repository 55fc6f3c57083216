import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

/**
 * A SQLite file's WAL checkpoints (the event store's and the read model's), off the thread that
 * writes. SQLite's automatic checkpoint runs inside a commit every ~1,000 pages: on the API's main
 * thread that was ~6 µs of every trigger applied, and a whole checkpoint's stall now and then
 * (once 1.35 s, with its fsyncs). The connections that write turn it off; this thread copies the
 * log into the file every `intervalMs` instead, each page once however often it changed in between.
 */
export interface Checkpointer {
  stop(): void;
}

export const CHECKPOINT_INTERVAL_MS = 1000;

export const startCheckpointer = (file: string, intervalMs = CHECKPOINT_INTERVAL_MS): Checkpointer => {
  const flags = new Int32Array(new SharedArrayBuffer(8));
  const worker = new Worker(join(__dirname, 'sqlite-checkpoint-thread.js'), { workerData: { file, intervalMs, flags: flags.buffer } });
  // Never what keeps a process alive; a thread that died leaves the log to grow until the next
  // start, which is safe (the log is part of the database), only larger.
  worker.unref();
  worker.on('error', () => undefined);
  return {
    // Synchronous, so that a caller may remove the file right after: once this returns, the
    // thread will not open it again (a checkpoint under way is waited for, ~ms, at most 2 s).
    stop: () => {
      Atomics.store(flags, 0, 1);
      Atomics.wait(flags, 1, 1, 2000);
      void worker.terminate();
    },
  };
};
