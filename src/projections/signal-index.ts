import Database from 'better-sqlite3';
import { Checkpoint, readable, StoredEvent } from '../event-store/port';
import { acceptedRecordOf, DISPATCH_REFUSED, SIGNAL_ACCEPTED } from '../model/signals/signal-record';

/**
 * The signal index: which stored signals there are, newest first, and which triggers each
 * matched, so `GET /api/signals?trigger_id=` pages without reading every signal stream. It lives
 * in the read model's file (its own tables and checkpoint) and follows the `signal` category.
 */
export const SIGNAL_INDEX_TABLES = `
  CREATE TABLE IF NOT EXISTS signals (
    position INTEGER PRIMARY KEY, id TEXT NOT NULL, accepted_at TEXT NOT NULL, signal TEXT NOT NULL,
    app_label TEXT NOT NULL, model_name TEXT NOT NULL, matched INTEGER NOT NULL, refused INTEGER NOT NULL);
  CREATE INDEX IF NOT EXISTS signals_by_id ON signals (id);
  CREATE TABLE IF NOT EXISTS signal_triggers (trigger_id TEXT NOT NULL, position INTEGER NOT NULL, PRIMARY KEY (trigger_id, position)) WITHOUT ROWID;`;
export const SIGNAL_INDEX_DROP = 'DROP TABLE IF EXISTS signals; DROP TABLE IF EXISTS signal_triggers;';

export interface IndexedSignal {
  position: bigint;
  id: string;
  accepted_at: string;
  signal: string;
  app_label: string;
  model_name: string;
  /** It matched at least one trigger (so the relay starts a dispatch for it). */
  matched: boolean;
  /** Temporal refused its dispatch for good. */
  refused: boolean;
  trigger_ids: string[];
}

/** Which signals a page may hold, from what the index knows. */
export interface SignalIndexFilter {
  triggerId?: string;
  /** `unmatched`: matched nothing; `refused`; `dispatched`: matched and not refused. */
  kind?: 'unmatched' | 'refused' | 'dispatched';
  /** Only signals at positions below this (the page before). */
  before?: bigint;
}

export interface SignalIndex {
  signalCheckpoint(): Checkpoint;
  applySignals(events: readonly StoredEvent[]): Checkpoint;
  resetSignals(): void;
  /** Up to `limit` signals, newest first. */
  signalPage(filter: SignalIndexFilter, limit: number): IndexedSignal[];
  /** Forgets signals accepted before `before` at or below `through` (what retention removed from the store). */
  removeSignalsBefore(before: Date, through: bigint): number;
}

interface Row {
  position: bigint;
  id: string;
  accepted_at: string;
  signal: string;
  app_label: string;
  model_name: string;
  matched: bigint;
  refused: bigint;
  trigger_ids: string | null;
}

const MAX_POSITION = 9223372036854775807n;

const KINDS = { unmatched: 's.matched = 0', refused: 's.refused = 1', dispatched: 's.matched = 1 AND s.refused = 0' } as const;

export const bindSignalIndex = (db: Database.Database): SignalIndex => {
  const q = {
    insert: db.prepare('INSERT OR IGNORE INTO signals VALUES (?, ?, ?, ?, ?, ?, ?, 0)'),
    addTrigger: db.prepare('INSERT OR IGNORE INTO signal_triggers VALUES (?, ?)'),
    refuse: db.prepare('UPDATE signals SET refused = 1 WHERE position = (SELECT max(position) FROM signals WHERE id = ?)'),
    read: db.prepare<[], { position: string }>("SELECT position FROM checkpoint WHERE name = 'signals'"),
    write: db.prepare("INSERT OR REPLACE INTO checkpoint VALUES ('signals', ?)"),
    removeTriggers: db.prepare(
      'DELETE FROM signal_triggers WHERE position IN (SELECT position FROM signals WHERE accepted_at < ? AND position <= ?)',
    ),
    remove: db.prepare('DELETE FROM signals WHERE accepted_at < ? AND position <= ?'),
  };
  const checkpoint = (): Checkpoint => {
    const r = q.read.get();
    return r === undefined ? 'start' : BigInt(r.position);
  };

  const applyOne = (e: StoredEvent) => {
    const id = e.streamId.slice('signal-'.length);
    // An acceptance this build cannot read is left out of the list (its own status says why, a
    // 503 naming the event): one odd signal never halts the read model for the rest.
    const record = e.type === SIGNAL_ACCEPTED ? readable(() => acceptedRecordOf(e)) : undefined;
    if (record) {
      const s = record.signal;
      q.insert.run(
        e.position,
        id,
        String(e.metadata.accepted_at),
        s.signal,
        s.app_label,
        s.model_name,
        record.plan.actions.length > 0 ? 1 : 0,
      );
      for (const t of record.plan.triggers) q.addTrigger.run(t.triggerId, e.position);
    } else if (e.type === DISPATCH_REFUSED && e.data.redelivery === undefined) {
      q.refuse.run(id);
    }
  };
  const applyBatch = db.transaction((events: readonly StoredEvent[]) => {
    let last = checkpoint();
    for (const e of events) {
      if (last !== 'start' && e.position <= last) continue;
      applyOne(e);
      last = e.position;
    }
    if (last !== 'start') q.write.run(String(last));
    return last;
  });

  const pages = new Map<string, Database.Statement<Record<string, unknown>, Row>>();
  const signalPage = (filter: SignalIndexFilter, limit: number): IndexedSignal[] => {
    const where = ['s.position < @before'];
    if (filter.triggerId !== undefined)
      where.push('s.position IN (SELECT position FROM signal_triggers WHERE trigger_id = @trigger_id AND position < @before)');
    if (filter.kind) where.push(KINDS[filter.kind]);
    const sql = `SELECT s.*, (SELECT group_concat(trigger_id) FROM signal_triggers t WHERE t.position = s.position) AS trigger_ids
      FROM signals s WHERE ${where.join(' AND ')} ORDER BY s.position DESC LIMIT @limit`;
    let statement = pages.get(sql);
    if (!statement) {
      statement = db.prepare<Record<string, unknown>, Row>(sql).safeIntegers(true);
      pages.set(sql, statement);
    }
    return statement.all({ before: filter.before ?? MAX_POSITION, trigger_id: filter.triggerId, limit }).map((r) => ({
      position: r.position,
      id: r.id,
      accepted_at: r.accepted_at,
      signal: r.signal,
      app_label: r.app_label,
      model_name: r.model_name,
      matched: r.matched === 1n,
      refused: r.refused === 1n,
      trigger_ids: r.trigger_ids ? r.trigger_ids.split(',').sort() : [],
    }));
  };

  return {
    signalCheckpoint: checkpoint,
    applySignals: (events) => applyBatch.immediate(events),
    resetSignals: () => db.exec("DELETE FROM signals; DELETE FROM signal_triggers; DELETE FROM checkpoint WHERE name = 'signals';"),
    signalPage,
    removeSignalsBefore: (before, through) =>
      db.transaction(() => {
        q.removeTriggers.run(before.toISOString(), through);
        return q.remove.run(before.toISOString(), through).changes;
      })(),
  };
};
