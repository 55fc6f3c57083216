// Copies a SQLite file's write-ahead log into the file, in a thread of its own (see
// sqlite-checkpointer.ts). Plain CommonJS: a worker thread loads it without ts-node.
const { workerData } = require('node:worker_threads');
const Database = require('better-sqlite3');

// [0]: stop asked; [1]: a checkpoint is under way (the owner waits for it to end before closing).
const flags = new Int32Array(workerData.flags);
/** A log this long after a passive checkpoint is started over (SQLite's automatic checkpoint: 1,000 pages). */
const RESTART_FRAMES = 1000;

const checkpoint = () => {
  Atomics.store(flags, 1, 1);
  try {
    if (Atomics.load(flags, 0) === 1) return;
    // Opened each time: the file may have been moved aside and rebuilt since the last tick.
    const db = new Database(workerData.file, { fileMustExist: true });
    try {
      db.pragma('busy_timeout = 1000');
      const [passive] = db.pragma('wal_checkpoint(PASSIVE)');
      // SQLite starts the log over only when a writer begins with all of it copied, which never
      // happens while two processes apply without pause: the log grew ~20 MB/s (every commit
      // extending the file, ~10 µs of a create's CPU). RESTART holds the writers off (~ms) until
      // the rest is copied, so that the next writer starts the log over.
      if (passive && passive.log >= RESTART_FRAMES) db.pragma('wal_checkpoint(RESTART)');
    } finally {
      db.close();
    }
  } catch {
    /* being replaced or rebuilt: the next tick tries again */
  } finally {
    Atomics.store(flags, 1, 0);
    Atomics.notify(flags, 1);
  }
};

const timer = setInterval(() => {
  if (Atomics.load(flags, 0) === 1) clearInterval(timer);
  else checkpoint();
}, workerData.intervalMs);
