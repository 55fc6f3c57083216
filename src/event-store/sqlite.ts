import Database from 'better-sqlite3';
import { EventEmitter } from 'node:events';
import { AppendResult, EventStore, ExpectedRevision, NewEvent, StoredEvent, WrongExpectedRevision } from './port';
import { followSqlite } from './sqlite-subscription';

/** How often a subscription looks for events appended by other processes on the same file. */
const POLL_INTERVAL_MS = 100;

interface EventRow {
  position: number | bigint; stream_id: string; revision: number | bigint;
  type: string; data: string; metadata: string;
}

const toStored = (r: EventRow): StoredEvent => ({
  position: BigInt(r.position),
  streamId: r.stream_id,
  revision: BigInt(r.revision),
  type: r.type,
  data: JSON.parse(r.data) as Record<string, unknown>,
  metadata: JSON.parse(r.metadata) as Record<string, unknown>,
});

const COLUMNS = 'position, stream_id, revision, type, data, metadata';

/**
 * The table, and the columns later versions added: `category` (the stream id before its first
 * `-`, computed, indexed with the position so that a category is read without scanning the
 * others) and `recorded_at` (ms since the epoch; retention removes by it). Several processes
 * may open one file at once: the change runs in one write transaction and checks again inside.
 */
const migrate = (db: Database.Database) => db.transaction(() => {
  db.exec(`CREATE TABLE IF NOT EXISTS events (
    position INTEGER PRIMARY KEY AUTOINCREMENT,
    stream_id TEXT NOT NULL,
    revision INTEGER NOT NULL,
    type TEXT NOT NULL,
    data TEXT NOT NULL,
    metadata TEXT NOT NULL,
    UNIQUE (stream_id, revision))`);
  const columns = new Set(db.prepare<[], { name: string }>('SELECT name FROM pragma_table_xinfo(\'events\')').all().map((c) => c.name));
  if (!columns.has('category')) {
    db.exec("ALTER TABLE events ADD COLUMN category TEXT GENERATED ALWAYS AS (substr(stream_id, 1, instr(stream_id, '-') - 1)) VIRTUAL");
  }
  if (!columns.has('recorded_at')) db.exec('ALTER TABLE events ADD COLUMN recorded_at INTEGER');
  db.exec('CREATE INDEX IF NOT EXISTS events_by_category ON events (category, position)');
}).immediate();

/**
 * Embedded event store in one SQLite file. WAL mode and BEGIN IMMEDIATE appends make it safe
 * for several processes (API and worker) on the same file: SQLite serialises the writers and
 * the (stream_id, revision) key enforces optimistic concurrency.
 */
export const openSqliteStore = (file: string): EventStore => {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 10000');
  migrate(db);
  const lastRevision = db.prepare<[string], { r: number | null }>(
    'SELECT MAX(revision) AS r FROM events WHERE stream_id = ?');
  const insert = db.prepare(
    'INSERT INTO events (stream_id, revision, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?)');
  const readStream = db.prepare<[string], EventRow>(`SELECT ${COLUMNS} FROM events WHERE stream_id = ? ORDER BY revision`);
  // A negative LIMIT is no limit in SQLite.
  const readForwards = db.prepare<[string, bigint, number], EventRow>(
    `SELECT ${COLUMNS} FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision LIMIT ?`);
  const readBackwards = db.prepare<[string, bigint, number], EventRow>(
    `SELECT ${COLUMNS} FROM events WHERE stream_id = ? AND revision <= ? ORDER BY revision DESC LIMIT ?`);
  const readAfter = db.prepare<[string, bigint, number], EventRow>(
    `SELECT ${COLUMNS} FROM events WHERE category = ? AND position > ? ORDER BY position LIMIT ?`);
  readAfter.safeIntegers(true);
  const head = db.prepare<[string], { p: number | null }>('SELECT MAX(position) AS p FROM events WHERE category = ?');
  const countAfter = db.prepare<[string, bigint, number], { n: number }>(
    'SELECT COUNT(*) AS n FROM (SELECT 1 FROM events WHERE category = ? AND position > ? LIMIT ?)');
  const oldest = db.prepare<[string, number], { position: number; recorded_at: number | null }>(
    'SELECT position, recorded_at FROM events WHERE category = ? ORDER BY position LIMIT ?');
  const removeThrough = db.prepare('DELETE FROM events WHERE category = ? AND position <= ?');
  const truncate = db.prepare('DELETE FROM events WHERE stream_id = ? AND revision < ?');
  const appended = new EventEmitter();
  appended.setMaxListeners(0);

  const appendTx = db.transaction((streamId: string, events: readonly NewEvent[], expected: ExpectedRevision) => {
    const row = lastRevision.get(streamId);
    const actual = row?.r == null ? 'no_stream' : BigInt(row.r);
    const matches = expected === 'any' || expected === actual;
    if (!matches) throw new WrongExpectedRevision(streamId, expected, actual);
    let revision = actual === 'no_stream' ? -1n : actual;
    let position = 0n;
    const now = Date.now();
    for (const e of events) {
      revision += 1n;
      const info = insert.run(streamId, revision, e.type, JSON.stringify(e.data), JSON.stringify(e.metadata), now);
      position = BigInt(info.lastInsertRowid);
    }
    return { nextRevision: revision, position };
  });

  /**
   * Group commit: appends made in the same turn of the event loop share one transaction and so
   * one fsync. Each runs in its own savepoint (a nested transaction), so a stale expected
   * revision fails only its own append.
   */
  interface Pending { streamId: string; events: readonly NewEvent[]; expected: ExpectedRevision; resolve: (r: AppendResult) => void; reject: (e: unknown) => void }
  let queue: Pending[] = [];
  const commitGroup = db.transaction((group: Pending[]) => group.map((p) => {
    try { return { ok: true as const, result: appendTx(p.streamId, p.events, p.expected) }; } catch (e) {
      if (e instanceof WrongExpectedRevision) return { ok: false as const, error: e };
      throw e;
    }
  }));
  const flush = () => {
    const group = queue;
    queue = [];
    try {
      commitGroup.immediate(group).forEach((outcome, i) => (outcome.ok ? group[i]!.resolve(outcome.result) : group[i]!.reject(outcome.error)));
    } catch (e) {
      group.forEach((p) => p.reject(e));
    }
    appended.emit('append');
  };

  // Oldest first, stopping at the first event recorded since `before`: work in proportion to what goes.
  const removeBefore = db.transaction((category: string, before: number, through: bigint, max: number) => {
    let last: number | undefined;
    for (const row of oldest.all(category, max)) {
      if ((row.recorded_at !== null && row.recorded_at >= before) || BigInt(row.position) > through) break;
      last = row.position;
    }
    return last === undefined ? 0 : removeThrough.run(category, last).changes;
  });

  return {
    append: (streamId, events, expected) => new Promise<AppendResult>((resolve, reject) => {
      if (queue.push({ streamId, events, expected, resolve, reject }) === 1) setImmediate(flush);
    }),
    read: async (streamId, range) => {
      if (!range) return readStream.all(streamId).map(toStored);
      const max = range.maxCount ?? -1;
      const rows = range.direction === 'backwards'
        ? readBackwards.all(streamId, range.fromRevision ?? BigInt(Number.MAX_SAFE_INTEGER), max)
        : readForwards.all(streamId, range.fromRevision ?? 0n, max);
      return rows.map(toStored);
    },
    headPosition: async (category = 'action_trigger') => {
      const p = head.get(category)?.p;
      return p == null ? 'start' : BigInt(p);
    },
    subscribe: (from, handler, onError, options = {}) => followSqlite(
      (position, limit) => readAfter.all(options.category ?? 'action_trigger', position, limit).map(toStored),
      appended, options.pollMs ?? POLL_INTERVAL_MS, from, handler, onError),
    readCategory: async (category, after, limit) => readAfter.all(category, after === 'start' ? 0n : after, limit).map(toStored),
    countAfter: async (category, from, cap) => countAfter.get(category, from === 'start' ? 0n : from, cap)!.n,
    removeRecordedBefore: async (category, before, through, max) => removeBefore.immediate(category, before.getTime(), through, max),
    truncateBefore: async (streamId, revision) => { truncate.run(streamId, revision); },
    close: async () => { db.close(); },
  };
};
