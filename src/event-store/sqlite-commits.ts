import Database from 'better-sqlite3';
import { closeSync, fdatasync, openSync } from 'node:fs';
import { AppendOutcome, SerializedAppend } from './group-commit';
import { StoreUnavailable } from './port';

/**
 * The embedded store's writes, made on the caller's thread without ever blocking it:
 * - a commit only writes the log (`synchronous = NORMAL`: no fsync inside it); the log is then
 *   made durable by fdatasync on libuv's thread pool, and an append resolves only after that;
 * - the write lock is taken without waiting (`busy_timeout = 0`): held by another process, the
 *   write is tried again a moment later while the event loop goes on;
 * - WAL checkpoints run on a thread of their own (sqlite-checkpointer.ts), never in a commit.
 * A writer thread did this before, at ~35 µs more CPU per append (each group cloned across, a
 * second isolate, two wake-ups per group).
 */
export interface SqliteCommits {
  append(group: readonly SerializedAppend[]): Promise<AppendOutcome[]>;
  /** Retention: the oldest events of `category` recorded before `before` (ms), up to `through` and at most `max`. */
  removeBefore(category: string, before: number, through: bigint, max: number): Promise<number>;
  truncate(streamId: string, revision: bigint): Promise<void>;
  /** Resolves once everything in the log so far is on disk: what a reader read from other processes' commits, before it acts on it. */
  durable(): Promise<void>;
  /** After the writes in hand (the caller stops making new ones) and the sync under way. */
  close(): Promise<void>;
}

/**
 * One commit takes queued appends up to this much JSON (at least one): its statements run on the
 * caller's thread, so a burst of large events is committed in steps of a few ms, not one long one.
 */
export const SQLITE_GROUP_MAX_CHARS = 1024 * 1024;

/** How long a write waits for another process's write lock, in all, before it fails (StoreUnavailable: a 503). */
const LOCK_WAIT_MS = 10_000;
/** Pauses between tries for the lock (then the last again): the holder commits without fsync, in well under a millisecond. */
const RETRY_MS = [1, 2];

const codeOf = (e: unknown) => String((e as { code?: unknown })?.code ?? '');
export const isBusy = (e: unknown) => codeOf(e).startsWith('SQLITE_BUSY');
/** SQLite's codes for a fault of the machine (disk full, I/O, permissions), not of the write: nothing was written. */
const MACHINE_FAULT = /^SQLITE_(FULL|IOERR|READONLY|CANTOPEN|NOLFS|PROTOCOL)/;
/**
 * A write that failed for the machine's sake: StoreUnavailable (the API answers 503 saying why,
 * and the client may try again); any other failure as it was. The reason holds codes only.
 */
const asOutage = (e: unknown): unknown => {
  if (isBusy(e)) return new StoreUnavailable(`another process has held the write lock for ${LOCK_WAIT_MS / 1000} s`);
  if (MACHINE_FAULT.test(codeOf(e))) return new StoreUnavailable(`the write failed (${codeOf(e)}); nothing was written`);
  return e;
};
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const openSqliteCommits = (file: string): SqliteCommits => {
  const db = new Database(file);
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 0');
  db.pragma('wal_autocheckpoint = 0');
  // `= +?`, not `= ?`: SQLite 3.54 prepares `stream_id = ?` again on every call (sqlite.ts, PLANNED_ONCE).
  const lastRevision = db.prepare<[string], { r: number | null }>('SELECT MAX(revision) AS r FROM events WHERE stream_id = +?');
  const insert = db.prepare<[string, bigint, string, string, string, number]>(
    'INSERT INTO events (stream_id, revision, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const oldest = db.prepare<[string, number], { position: number; recorded_at: number | null }>(
    'SELECT position, recorded_at FROM events WHERE category = ? ORDER BY position LIMIT ?',
  );
  const removeThrough = db.prepare<[string, number]>('DELETE FROM events WHERE category = ? AND position <= ?');
  const truncateBefore = db.prepare<[string, bigint]>('DELETE FROM events WHERE stream_id = ? AND revision < ?');

  /** One append; a stale expected revision is an answer (`ok: false`), not an error, and writes nothing. */
  const appendOne = ({ streamId, events, expected }: SerializedAppend): AppendOutcome => {
    const row = lastRevision.get(streamId);
    const actual = row?.r == null ? ('no_stream' as const) : BigInt(row.r);
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
  const appendGroup = db.transaction((group: readonly SerializedAppend[]) => group.map(appendOne));
  // Oldest first, stopping at the first event recorded since `before`: work in proportion to what goes.
  const removeOldest = db.transaction((category: string, before: number, through: bigint, max: number) => {
    let last: number | undefined;
    for (const row of oldest.all(category, max)) {
      if ((row.recorded_at !== null && row.recorded_at >= before) || BigInt(row.position) > through) break;
      last = row.position;
    }
    return last === undefined ? 0 : removeThrough.run(category, last).changes;
  });

  // fdatasync flushes the log file's pages whoever wrote them (every process's commits so far).
  // The log is never deleted while this connection is open (SQLite removes it on the last close).
  let logFd: number | undefined;
  let closed = false;
  const syncLog = () =>
    new Promise<void>((resolve, reject) => {
      if (closed) return reject(new Error('the event store is closed'));
      logFd ??= openSync(`${file}-wal`, 'r+');
      fdatasync(logFd, (e) => (e ? reject(e) : resolve()));
    });
  // A reader's: one at a time; readers that come while one runs share the next, which starts after
  // them. A commit never waits for them: it starts its own sync at once (waiting behind a reader's
  // cost trigger creation ~15 % of its rate with two API processes).
  let running: Promise<void> | undefined;
  let next: Promise<void> | undefined;
  const durable = (): Promise<void> => {
    if (!running)
      return (running = syncLog().finally(() => {
        running = undefined;
      }));
    return (next ??= running
      .catch(() => undefined)
      .then(() => {
        next = undefined;
        return durable();
      }));
  };

  /** The writes not settled yet: close waits for them. */
  const inHand = new Set<Promise<unknown>>();
  const write = <T>(run: () => T): Promise<T> => {
    const written = tryWrite(run);
    inHand.add(written);
    void written.catch(() => undefined).finally(() => inHand.delete(written));
    return written;
  };
  /** Runs `run` (its own transaction) once the write lock is free, then waits for the log to be on disk. */
  const tryWrite = async <T>(run: () => T): Promise<T> => {
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      let result: T;
      try {
        result = run();
      } catch (e) {
        if (!isBusy(e) || Date.now() - started >= LOCK_WAIT_MS) throw asOutage(e);
        await pause(RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]!);
        continue;
      }
      try {
        await syncLog();
      } catch (e) {
        // Committed, and readable until the machine fails: the client retrying may write it twice.
        throw new StoreUnavailable(`the log could not be synced to disk (${codeOf(e) || 'closed'}); the write may have been kept`);
      }
      return result;
    }
  };

  return {
    append: (group) => write(() => appendGroup.immediate(group)),
    removeBefore: (category, before, through, max) => write(() => removeOldest.immediate(category, before, through, max)),
    truncate: (streamId, revision) =>
      write(() => {
        truncateBefore.run(streamId, revision);
      }),
    durable,
    close: async () => {
      // The descriptor stays open until no write or sync can still be using it.
      await Promise.allSettled([...inHand]);
      await next?.catch(() => undefined);
      await running?.catch(() => undefined);
      closed = true;
      db.close();
      if (logFd !== undefined) closeSync(logFd);
    },
  };
};
