// Copies the read model's write-ahead log into its file, in a thread of its own (see
// read-model-checkpointer.ts). Plain CommonJS: a worker thread loads it without ts-node.
const { workerData } = require('node:worker_threads');
const Database = require('better-sqlite3');

// [0]: stop asked; [1]: a checkpoint is under way (the owner waits for it to end before closing).
const flags = new Int32Array(workerData.flags);

const checkpoint = () => {
  Atomics.store(flags, 1, 1);
  try {
    if (Atomics.load(flags, 0) === 1) return;
    // Opened each time: the file may have been moved aside and rebuilt since the last tick.
    const db = new Database(workerData.file, { fileMustExist: true });
    try {
      db.pragma('busy_timeout = 1000');
      db.pragma('wal_checkpoint(PASSIVE)');
    } finally {
      db.close();
    }
  } catch { /* being replaced or rebuilt: the next tick tries again */ } finally {
    Atomics.store(flags, 1, 0);
    Atomics.notify(flags, 1);
  }
};

const timer = setInterval(() => {
  if (Atomics.load(flags, 0) === 1) clearInterval(timer);
  else checkpoint();
}, workerData.intervalMs);
