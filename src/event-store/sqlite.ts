import Database from 'better-sqlite3';
import { EventEmitter } from 'node:events';
import { EventStore, StoredEvent } from './port';
import { AppendOutcome, groupCommitter, SerializedAppend } from './group-commit';
import { followPositions } from './follow-positions';
import { boundedPage } from '../kernel/bounded-page';
import { openSqliteCommits, SQLITE_GROUP_MAX_CHARS } from './sqlite-commits';
import { startCheckpointer } from './sqlite-checkpointer';
import { categoryOf, EventRow, recentAppends } from './recent-appends';
import { openInWalMode } from './sqlite-open';

/** How often a subscription looks for events appended by other processes on the same file. */
const POLL_INTERVAL_MS = 100;

/**
 * A subscription's batch when its subscriber sets no bound: the projection catching up over
 * large definitions, or the relay over large signals, would otherwise read 1,000 of them at once
 * (up to ~256 MB of trigger definitions).
 */
const SUBSCRIPTION_BATCH_BYTES = 16 * 1024 * 1024;
/** Rows read at a time while a batch fills: a byte bound then reads at most this many more than it keeps. */
const READ_CHUNK = 128;

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
 * PLANNED_ONCE: the statements compare `stream_id` and `category` with `+?`, not `?`, and bind
 * LIMIT as `+?`. SQLite 3.54 (better-sqlite3 13) prepared a statement with `stream_id = ?` or
 * `category = ?` over its index again on every call, and any SQLite one with `LIMIT ?` (13-30 µs
 * instead of 4-6: the writer's revision check per append, the subscription's read per batch). The
 * unary plus changes neither the value nor the plan (the same index search, EXPLAIN QUERY PLAN);
 * it only keeps the planner from planning again for each value.
 */

/** The rows a group's successful appends wrote: an append's events take consecutive positions and revisions up to those returned. */
const committedRows = (appends: readonly SerializedAppend[], outcomes: readonly AppendOutcome[]) =>
  outcomes.flatMap((o, i) => {
    if (!o.ok) return [];
    const events = appends[i]!.events;
    const first = BigInt(1 - events.length);
    return events.map((e, k) => ({
      position: o.position + first + BigInt(k),
      stream_id: appends[i]!.streamId,
      revision: o.nextRevision + first + BigInt(k),
      type: e.type,
      data: e.data,
      metadata: e.metadata,
    }));
  });

/**
 * The table, and the columns later versions added: `category` (the stream id before its first
 * `-`, computed, indexed with the position so that a category is read without scanning the
 * others) and `recorded_at` (ms since the epoch; retention removes by it). Several processes
 * may open one file at once: the change runs in one write transaction and checks again inside.
 */
const migrate = (db: Database.Database) =>
  db
    .transaction(() => {
      db.exec(`CREATE TABLE IF NOT EXISTS events (
    position INTEGER PRIMARY KEY AUTOINCREMENT,
    stream_id TEXT NOT NULL,
    revision INTEGER NOT NULL,
    type TEXT NOT NULL,
    data TEXT NOT NULL,
    metadata TEXT NOT NULL,
    UNIQUE (stream_id, revision))`);
      const columns = new Set(
        db
          .prepare<[], { name: string }>("SELECT name FROM pragma_table_xinfo('events')")
          .all()
          .map((c) => c.name),
      );
      if (!columns.has('category')) {
        db.exec(
          "ALTER TABLE events ADD COLUMN category TEXT GENERATED ALWAYS AS (substr(stream_id, 1, instr(stream_id, '-') - 1)) VIRTUAL",
        );
      }
      if (!columns.has('recorded_at')) db.exec('ALTER TABLE events ADD COLUMN recorded_at INTEGER');
      db.exec('CREATE INDEX IF NOT EXISTS events_by_category ON events (category, position)');
    })
    .immediate();

/**
 * Embedded event store in one SQLite file. WAL mode and BEGIN IMMEDIATE appends make it safe
 * for several processes (API and worker) on the same file: SQLite serialises the writers and
 * the (stream_id, revision) key enforces optimistic concurrency. Writes go through
 * sqlite-commits.ts (durable before they resolve, never blocking the event loop).
 */
export const openSqliteStore = (file: string): EventStore => {
  const db = openInWalMode(file);
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 10000');
  migrate(db);
  const readStream = db.prepare<[string], EventRow>(`SELECT ${COLUMNS} FROM events WHERE stream_id = +? ORDER BY revision`);
  // A negative LIMIT is no limit in SQLite.
  const readForwards = db.prepare<[string, bigint, number], EventRow>(
    `SELECT ${COLUMNS} FROM events WHERE stream_id = +? AND revision >= ? ORDER BY revision LIMIT +?`,
  );
  const readBackwards = db.prepare<[string, bigint, number], EventRow>(
    `SELECT ${COLUMNS} FROM events WHERE stream_id = +? AND revision <= ? ORDER BY revision DESC LIMIT +?`,
  );
  const readAfter = db.prepare<[string, bigint, number], EventRow>(
    `SELECT ${COLUMNS} FROM events WHERE category = +? AND position > ? ORDER BY position LIMIT +?`,
  );
  readAfter.safeIntegers(true);
  /**
   * readAfter, stopping before the events' data (a JSON array) passes `maxBytes` (always one): rows
   * past it are never read. Rows read from the file may be another process's commit whose log is
   * not on disk yet: a subscriber acts on them only once they are (this process's own were before
   * they resolved).
   */
  const readAfterWithin = async (category: string, position: bigint, limit: number, maxBytes: number) => {
    const local = recent.after(
      category,
      position,
      limit,
      (
        (page) => (row: EventRow) =>
          page.add(row.data)
      )(boundedPage(maxBytes)),
    );
    if (local) return { events: local.rows.map(toStored), cut: local.cut };
    const read = readFromFile(category, position, limit, maxBytes);
    const last = read.events.at(-1)?.position;
    if (last !== undefined && last > durableThrough) {
      await commits.durable();
      if (last > durableThrough) durableThrough = last;
    }
    return read;
  };
  const readFromFile = (category: string, position: bigint, limit: number, maxBytes: number) => {
    const page = boundedPage(maxBytes);
    const rows: EventRow[] = [];
    // Read in chunks with .all(), not .iterate(): an iterator left early is finalized by the
    // garbage collector, which aborts the process on newer Node versions (better-sqlite3 12).
    let after = position;
    while (rows.length < limit) {
      const chunk = readAfter.all(category, after, Math.min(READ_CHUNK, limit - rows.length));
      for (const row of chunk) {
        if (!page.add(row.data)) return { events: rows.map(toStored), cut: true };
        rows.push(row);
      }
      if (chunk.length < READ_CHUNK) break;
      after = BigInt(chunk[chunk.length - 1]!.position);
    }
    return { events: rows.map(toStored), cut: false };
  };
  const head = db.prepare<[string], { p: number | null }>('SELECT MAX(position) AS p FROM events WHERE category = +?');
  const countAfter = db.prepare<[string, bigint, number], { n: number }>(
    'SELECT COUNT(*) AS n FROM (SELECT 1 FROM events WHERE category = +? AND position > ? LIMIT +?)',
  );
  const recent = recentAppends();
  /**
   * Every event up to here is on disk: the log is durable only as a prefix, and positions follow
   * its order, so a synced commit (this process's, or a reader's sync after reading) covers all
   * before it. Later readers of the same rows then need no sync of their own.
   */
  let durableThrough = 0n;
  const appended = new EventEmitter();
  appended.setMaxListeners(0);
  // This connection only reads (and migrated the file above); writes have their own.
  const commits = openSqliteCommits(file);
  const checkpointer = startCheckpointer(file);

  // Only the subscriptions of the categories appended wake: the relay and the signal index
  // reading the file after every trigger created cost each create ~30 µs.
  const groups = groupCommitter(
    (group) => commits.append(group),
    (group, outcomes) => {
      if (!outcomes) return appended.emit('append', undefined);
      recent.add(committedRows(group, outcomes));
      for (const o of outcomes) if (o.ok && o.position > durableThrough) durableThrough = o.position;
      appended.emit('append', new Set(group.map((a) => categoryOf(a.streamId))));
    },
    SQLITE_GROUP_MAX_CHARS,
  );
  let closed = false;
  // Every write after close() is refused.
  const refuseWhenClosed = () => {
    if (closed) throw new Error('the event store is closed');
  };

  return {
    append: async (streamId, events, expected) => {
      refuseWhenClosed();
      return groups.append(streamId, events, expected);
    },
    read: async (streamId, range) => {
      if (!range) return readStream.all(streamId).map(toStored);
      const max = range.maxCount ?? -1;
      const rows =
        range.direction === 'backwards'
          ? readBackwards.all(streamId, range.fromRevision ?? BigInt(Number.MAX_SAFE_INTEGER), max)
          : readForwards.all(streamId, range.fromRevision ?? 0n, max);
      return rows.map(toStored);
    },
    headPosition: async (category = 'action_trigger') => {
      const p = head.get(category)?.p;
      return p == null ? 'start' : BigInt(p);
    },
    subscribe: (from, handler, onError, options = {}) =>
      followPositions(
        (position, limit) =>
          readAfterWithin(options.category ?? 'action_trigger', position, limit, options.maxBatchBytes ?? SUBSCRIPTION_BATCH_BYTES),
        appended,
        options.pollMs ?? POLL_INTERVAL_MS,
        from,
        handler,
        onError,
        { category: 'action_trigger', ...options },
      ),
    readCategory: async (category, after, limit) => readAfter.all(category, after === 'start' ? 0n : after, limit).map(toStored),
    countAfter: async (category, from, cap) => countAfter.get(category, from === 'start' ? 0n : from, cap)!.n,
    removeRecordedBefore: async (category, before, through, max) => {
      refuseWhenClosed();
      return commits.removeBefore(category, before.getTime(), through, max);
    },
    truncateBefore: async (streamId, revision) => {
      refuseWhenClosed();
      return commits.truncate(streamId, revision);
    },
    close: async () => {
      closed = true;
      await groups.drained();
      checkpointer.stop();
      await commits.close();
      db.close();
    },
  };
};
