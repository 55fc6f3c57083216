// Copies the read model's write-ahead log into its file, in a thread of its own (see
// read-model-checkpointer.ts). Plain CommonJS: a worker thread loads it without ts-node.
const { parentPort, workerData } = require('node:worker_threads');
const Database = require('better-sqlite3');

const checkpoint = () => {
  try {
    // Opened each time: the file may have been moved aside and rebuilt since the last tick.
    const db = new Database(workerData.file, { fileMustExist: true });
    try {
      db.pragma('busy_timeout = 1000');
      db.pragma('wal_checkpoint(PASSIVE)');
    } finally {
      db.close();
    }
  } catch { /* being replaced or rebuilt: the next tick tries again */ }
};

const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', (m) => {
  if (m !== 'stop') return;
  clearInterval(timer);
  checkpoint();
  parentPort.close();
});
