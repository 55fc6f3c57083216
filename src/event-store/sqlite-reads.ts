import Database from 'better-sqlite3';
import { boundedPage } from '../kernel/bounded-page';
import { Checkpoint, ReadRange } from './port';
import { EventRow, recentAppends } from './recent-appends';
import { COLUMNS, toStored } from './stored-rows';

/** Rows read at a time while a batch fills: a byte bound then reads at most this many more than it keeps. */
const READ_CHUNK = 128;

/**
 * The read statements over the file.
 *
 * PLANNED_ONCE: the statements compare `stream_id` and `category` with `+?`, not `?`, and bind
 * LIMIT as `+?`. SQLite 3.54 (better-sqlite3 13) prepared a statement with `stream_id = ?` or
 * `category = ?` over its index again on every call, and any SQLite one with `LIMIT ?` (13-30 µs
 * instead of 4-6: the writer's revision check per append, the subscription's read per batch). The
 * unary plus changes neither the value nor the plan (the same index search, EXPLAIN QUERY PLAN);
 * it only keeps the planner from planning again for each value.
 */
export const prepareReads = (db: Database.Database) => {
  const reads = {
    stream: db.prepare<[string], EventRow>(`SELECT ${COLUMNS} FROM events WHERE stream_id = +? ORDER BY revision`),
    // A negative LIMIT is no limit in SQLite.
    forwards: db.prepare<[string, bigint, number], EventRow>(
      `SELECT ${COLUMNS} FROM events WHERE stream_id = +? AND revision >= ? ORDER BY revision LIMIT +?`,
    ),
    backwards: db.prepare<[string, bigint, number], EventRow>(
      `SELECT ${COLUMNS} FROM events WHERE stream_id = +? AND revision <= ? ORDER BY revision DESC LIMIT +?`,
    ),
    after: db.prepare<[string, bigint, number], EventRow>(
      `SELECT ${COLUMNS} FROM events WHERE category = +? AND position > ? ORDER BY position LIMIT +?`,
    ),
    head: db.prepare<[string], { p: number | null }>('SELECT MAX(position) AS p FROM events WHERE category = +?'),
    countAfter: db.prepare<[string, bigint, number], { n: number }>(
      'SELECT COUNT(*) AS n FROM (SELECT 1 FROM events WHERE category = +? AND position > ? LIMIT +?)',
    ),
  };
  reads.after.safeIntegers(true);
  return reads;
};
export type SqliteReads = ReturnType<typeof prepareReads>;

/** The events of one stream, or the part `range` names. */
export const readStream = (reads: SqliteReads, streamId: string, range?: ReadRange) => {
  if (!range) return reads.stream.all(streamId).map(toStored);
  const max = range.maxCount ?? -1;
  const rows =
    range.direction === 'backwards'
      ? reads.backwards.all(streamId, range.fromRevision ?? BigInt(Number.MAX_SAFE_INTEGER), max)
      : reads.forwards.all(streamId, range.fromRevision ?? 0n, max);
  return rows.map(toStored);
};

const startOf = (c: Checkpoint) => (c === 'start' ? 0n : c);

export const headPosition = (reads: SqliteReads, category: string): Checkpoint => {
  const p = reads.head.get(category)?.p;
  return p == null ? 'start' : BigInt(p);
};

export const eventsAfter = (reads: SqliteReads, category: string, after: Checkpoint, limit: number) =>
  reads.after.all(category, startOf(after), limit).map(toStored);

export const countAfter = (reads: SqliteReads, category: string, from: Checkpoint, cap: number) =>
  reads.countAfter.get(category, startOf(from), cap)!.n;

/** Events of the category after `position` from the file, stopping before their data pass `maxBytes` (always one). */
const eventsInFile = (reads: SqliteReads, category: string, position: bigint, limit: number, maxBytes: number) => {
  const page = boundedPage(maxBytes);
  const rows: EventRow[] = [];
  // Read in chunks with .all(), not .iterate(): an iterator left early is finalized by the
  // garbage collector, which aborts the process on newer Node versions (better-sqlite3 12).
  let after = position;
  while (rows.length < limit) {
    const chunk = reads.after.all(category, after, Math.min(READ_CHUNK, limit - rows.length));
    for (const row of chunk) {
      if (!page.add(row.data)) return { events: rows.map(toStored), cut: true };
      rows.push(row);
    }
    if (chunk.length < READ_CHUNK) break;
    after = BigInt(chunk[chunk.length - 1]!.position);
  }
  return { events: rows.map(toStored), cut: false };
};

/** Where a subscription's batch comes from: this process's recent appends, the file, and how to wait until rows are on disk. */
export interface BatchSources {
  reads: SqliteReads;
  recent: ReturnType<typeof recentAppends>;
  /** Resolves once every event up to `position` is on disk. */
  durableTo: (position: bigint) => Promise<void>;
}

/**
 * A subscription's batch, stopping before the events' data (a JSON array) passes `maxBytes`
 * (always one): rows past it are never read. Rows read from the file may be another process's
 * commit whose log is not on disk yet: a subscriber acts on them only once they are (this
 * process's own were before they resolved).
 */
export const subscriptionBatch = async (
  { reads, recent, durableTo }: BatchSources,
  category: string,
  position: bigint,
  limit: number,
  maxBytes: number,
) => {
  const page = boundedPage(maxBytes);
  const local = recent.after(category, position, limit, (row) => page.add(row.data));
  if (local) return { events: local.rows.map(toStored), cut: local.cut };
  const read = eventsInFile(reads, category, position, limit, maxBytes);
  const last = read.events.at(-1)?.position;
  if (last !== undefined) await durableTo(last);
  return read;
};
