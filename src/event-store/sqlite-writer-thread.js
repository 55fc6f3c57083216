// The embedded event store's writes, in a worker thread of their own (see sqlite-writer.ts).
// Plain CommonJS: a worker thread loads it without ts-node, in every way the service runs.
const { parentPort, workerData } = require('node:worker_threads');
const Database = require('better-sqlite3');

const db = new Database(workerData.file);
db.pragma('journal_mode = WAL');
// The append is durable (synced) before the API answers 202: a crash of the machine keeps it.
db.pragma('synchronous = FULL');
db.pragma('busy_timeout = 10000');

// `= +?`, not `= ?`: SQLite 3.54 prepares `stream_id = ?` again on every call (~10 µs of each
// append); the unary plus keeps the same plan (the unique index) without that (sqlite.ts, PLANNED_ONCE).
const lastRevision = db.prepare('SELECT MAX(revision) AS r FROM events WHERE stream_id = +?');
const insert = db.prepare(
  'INSERT INTO events (stream_id, revision, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?)');
const oldest = db.prepare('SELECT position, recorded_at FROM events WHERE category = ? ORDER BY position LIMIT ?');
const removeThrough = db.prepare('DELETE FROM events WHERE category = ? AND position <= ?');
const truncate = db.prepare('DELETE FROM events WHERE stream_id = ? AND revision < ?');

/**
 * One append; a stale expected revision is an answer (`actual`), not an error. Data arrive serialized.
 * A plain function inside the group's transaction, not a savepoint of its own: a refused append
 * has written nothing, and a throw rolls back the whole group anyway (a SAVEPOINT and a RELEASE
 * per append were two statements of each append for nothing).
 */
const appendOne = ({ streamId, events, expected }) => {
  const row = lastRevision.get(streamId);
  const actual = row?.r == null ? 'no_stream' : BigInt(row.r);
  if (expected !== 'any' && expected !== actual) return { ok: false, streamId, expected, actual };
  let revision = actual === 'no_stream' ? -1n : actual;
  let position = 0n;
  const now = Date.now();
  for (const e of events) {
    revision += 1n;
    position = BigInt(insert.run(streamId, revision, e.type, e.data, e.metadata, now).lastInsertRowid);
  }
  return { ok: true, nextRevision: revision, position };
};

/** Group commit: the appends queued while the last commit ran share one transaction, one fsync. */
const appendGroup = db.transaction((group) => group.map(appendOne));

// Oldest first, stopping at the first event recorded since `before`: work in proportion to what goes.
const removeBefore = db.transaction(({ category, before, through, max }) => {
  let last;
  for (const row of oldest.all(category, max)) {
    if ((row.recorded_at !== null && row.recorded_at >= before) || BigInt(row.position) > through) break;
    last = row.position;
  }
  return last === undefined ? 0 : removeThrough.run(category, last).changes;
});

const operations = {
  append: (m) => appendGroup.immediate(m.group),
  removeBefore: (m) => removeBefore.immediate(m),
  truncate: (m) => { truncate.run(m.streamId, m.revision); },
};

parentPort.on('message', (m) => {
  if (m.op === 'close') {
    db.close();
    parentPort.postMessage({ id: m.id, ok: true });
    parentPort.close();
    return;
  }
  try {
    parentPort.postMessage({ id: m.id, ok: true, result: operations[m.op](m) });
  } catch (e) {
    parentPort.postMessage({ id: m.id, ok: false, error: { message: e instanceof Error ? e.message : String(e), code: e?.code } });
  }
});
