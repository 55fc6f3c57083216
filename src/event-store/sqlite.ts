import Database from 'better-sqlite3';
import { EventEmitter } from 'node:events';
import {
  AppendResult, BatchHandler, Checkpoint, EventStore, ExpectedRevision, NewEvent, StoredEvent,
  Subscription, TRIGGER_STREAM_PREFIX, WrongExpectedRevision,
} from './port';

/** How often a subscription looks for events appended by other processes on the same file. */
const POLL_INTERVAL_MS = 100;
const BATCH_SIZE = 1000;

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
  db.exec(`CREATE TABLE IF NOT EXISTS events (
    position INTEGER PRIMARY KEY AUTOINCREMENT,
    stream_id TEXT NOT NULL,
    revision INTEGER NOT NULL,
    type TEXT NOT NULL,
    data TEXT NOT NULL,
    metadata TEXT NOT NULL,
    UNIQUE (stream_id, revision))`);
  const lastRevision = db.prepare<[string], { r: number | null }>(
    'SELECT MAX(revision) AS r FROM events WHERE stream_id = ?');
  const insert = db.prepare(
    'INSERT INTO events (stream_id, revision, type, data, metadata) VALUES (?, ?, ?, ?, ?)');
  const readStream = db.prepare<[string], EventRow>(
    'SELECT * FROM events WHERE stream_id = ? ORDER BY revision');
  const readAfter = db.prepare<[number | bigint, string, number], EventRow>(
    `SELECT * FROM events WHERE position > ? AND substr(stream_id, 1, ${TRIGGER_STREAM_PREFIX.length}) = ?
   ORDER BY position LIMIT ?`);
  const head = db.prepare<[], { p: number | null }>('SELECT MAX(position) AS p FROM events');
  readAfter.safeIntegers(true);
  const appended = new EventEmitter();
  appended.setMaxListeners(0);

  const appendTx = db.transaction((streamId: string, events: readonly NewEvent[], expected: ExpectedRevision) => {
    const row = lastRevision.get(streamId);
    const actual = row?.r == null ? 'no_stream' : BigInt(row.r);
    const matches = expected === 'any' || expected === actual;
    if (!matches) throw new WrongExpectedRevision(streamId, expected, actual);
    let revision = actual === 'no_stream' ? -1n : actual;
    let position = 0n;
    for (const e of events) {
      revision += 1n;
      const info = insert.run(streamId, revision, e.type, JSON.stringify(e.data), JSON.stringify(e.metadata));
      position = BigInt(info.lastInsertRowid);
    }
    return { nextRevision: revision, position };
  });

  const subscribe = (from: Checkpoint, handler: BatchHandler, onError: (e: unknown) => void): Subscription => {
    let checkpoint = from === 'start' ? 0n : from;
    let closed = false;
    // Set by every local append; checked before sleeping so an append made while the handler
    // ran is never missed (it would otherwise wait a whole poll interval).
    let appendedSinceRead = false;
    let wake: (() => void) | undefined;
    const onAppend = () => { appendedSinceRead = true; wake?.(); };
    appended.on('append', onAppend);
    const sleep = () => new Promise<void>((resolve) => {
      if (appendedSinceRead || closed) return resolve();
      const timer = setTimeout(resolve, POLL_INTERVAL_MS);
      wake = () => { clearTimeout(timer); resolve(); };
    });
    const loop = async () => {
      while (!closed) {
        // One turn of the event loop lets appends made by concurrent requests join this batch.
        await new Promise((r) => setImmediate(r));
        appendedSinceRead = false;
        try {
          const rows = readAfter.all(checkpoint, TRIGGER_STREAM_PREFIX, BATCH_SIZE);
          if (rows.length > 0) {
            const batch = rows.map(toStored);
            await handler(batch);
            checkpoint = batch[batch.length - 1]!.position;
            if (rows.length === BATCH_SIZE) continue;
          }
        } catch (e) {
          onError(e);
          await new Promise((r) => setTimeout(r, POLL_INTERVAL_MS));
          continue;
        }
        if (!closed) await sleep();
      }
    };
    const running = loop();
    return {
      close: async () => {
        closed = true;
        appended.off('append', onAppend);
        wake?.();
        await running;
      },
    };
  };

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

  return {
    append: (streamId, events, expected) => new Promise<AppendResult>((resolve, reject) => {
      if (queue.push({ streamId, events, expected, resolve, reject }) === 1) setImmediate(flush);
    }),
    read: async (streamId) => readStream.all(streamId).map(toStored),
    headPosition: async () => {
      const p = head.get()?.p;
      return p == null ? 'start' : BigInt(p);
    },
    subscribe,
    close: async () => { db.close(); },
  };
};
