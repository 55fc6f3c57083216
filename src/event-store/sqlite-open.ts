import Database from 'better-sqlite3';
import { isBusy } from './sqlite-commits';

/** How long opening waits, in all, for other processes to let go of a new file (as a write waits for the lock). */
const OPEN_WAIT_MS = 10_000;
const RETRY_MS = 5;

const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Opens a SQLite file that several processes share (the event store, the read model) in WAL
 * mode. Turning a file to WAL takes an exclusive lock that SQLite does not wait for (its busy
 * handler is not called there): when the API processes and the worker started on one new file
 * together, one of them was sometimes refused SQLITE_BUSY at once and exited. It tries again
 * until OPEN_WAIT_MS have passed; this runs once, at start-up, so the short blocking waits are fine.
 */
export const openInWalMode = (file: string): Database.Database => {
  const db = new Database(file);
  const deadline = Date.now() + OPEN_WAIT_MS;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return db;
    } catch (e) {
      if (!isBusy(e) || Date.now() >= deadline) {
        db.close();
        throw isBusy(e)
          ? new Error(`${file}: another process has held it locked for ${OPEN_WAIT_MS / 1000} s; cannot turn it to WAL mode`, { cause: e })
          : e;
      }
      sleepSync(RETRY_MS);
    }
  }
};
