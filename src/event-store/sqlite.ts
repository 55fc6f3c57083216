import Database from 'better-sqlite3';
import { EventEmitter } from 'node:events';
import { EventStore } from './port';
import { AppendOutcome, groupCommitter, SerializedAppend } from './group-commit';
import { followPositions } from './follow-positions';
import { openSqliteCommits, SqliteCommits, SQLITE_GROUP_MAX_CHARS } from './sqlite-commits';
import { startCheckpointer } from './sqlite-checkpointer';
import { categoryOf, recentAppends } from './recent-appends';
import { openInWalMode } from './sqlite-open';
import { countAfter, eventsAfter, headPosition, prepareReads, readStream, subscriptionBatch } from './sqlite-reads';

/** How often a subscription looks for events appended by other processes on the same file. */
const POLL_INTERVAL_MS = 100;

/**
 * A subscription's batch when its subscriber sets no bound: the projection catching up over
 * large definitions, or the relay over large signals, would otherwise read 1,000 of them at once
 * (up to ~256 MB of trigger definitions).
 */
const SUBSCRIPTION_BATCH_BYTES = 16 * 1024 * 1024;

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
 * The position every event up to which is on disk: the log is durable only as a prefix, and
 * positions follow its order, so a synced commit (this process's, or a reader's sync after
 * reading) covers all before it. Later readers of the same rows then need no sync of their own.
 */
const durableMark = (commits: SqliteCommits) => {
  let through = 0n;
  return {
    /** A commit of this process synced up to `position`. */
    passed: (position: bigint) => {
      if (position > through) through = position;
    },
    /** Syncs unless `position` is known to be on disk already. */
    durableTo: async (position: bigint) => {
      if (position <= through) return;
      await commits.durable();
      if (position > through) through = position;
    },
  };
};

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
  const reads = prepareReads(db);
  const recent = recentAppends();
  const appended = new EventEmitter();
  appended.setMaxListeners(0);
  // This connection only reads (and migrated the file above); writes have their own.
  const commits = openSqliteCommits(file);
  const durable = durableMark(commits);
  const checkpointer = startCheckpointer(file);

  // Only the subscriptions of the categories appended wake: the relay and the signal index
  // reading the file after every trigger created cost each create ~30 µs.
  const groups = groupCommitter(
    (group) => commits.append(group),
    (group, outcomes) => {
      if (!outcomes) return appended.emit('append', undefined);
      recent.add(committedRows(group, outcomes));
      for (const o of outcomes) if (o.ok) durable.passed(o.position);
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
    read: async (streamId, range) => readStream(reads, streamId, range),
    headPosition: async (category = 'action_trigger') => headPosition(reads, category),
    subscribe: (from, handler, onError, options = {}) =>
      followPositions(
        (position, limit) =>
          subscriptionBatch(
            { reads, recent, durableTo: durable.durableTo },
            options.category ?? 'action_trigger',
            position,
            limit,
            options.maxBatchBytes ?? SUBSCRIPTION_BATCH_BYTES,
          ),
        appended,
        options.pollMs ?? POLL_INTERVAL_MS,
        from,
        handler,
        onError,
        { category: 'action_trigger', ...options },
      ),
    readCategory: async (category, after, limit) => eventsAfter(reads, category, after, limit),
    countAfter: async (category, from, cap) => countAfter(reads, category, from, cap),
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
