import Database from 'better-sqlite3';
import { StoredEvent } from '../src/event-store/port';
import { contentTypePart } from '../src/triggers/model/policy';
import { SIGNALS } from '../src/triggers/model/codecs';
import { occurredAt } from '../src/triggers/model/events';
import { readStoredEvent } from '../src/triggers/model/stored-events';
import { MAX_LIST_PAGE_BYTES } from '../src/kernel/limits';
import { Logger, silentLogger } from '../src/kernel/logger';
import { evolveView, toResource, TriggerResource, TriggerView } from './trigger-view';
import { bindTriggerList, ListFilter, ListPage } from './trigger-list';
import { inodeOf, isCorruption, moveAside, openCheckedFile } from './read-model-file';
import { bindSignalIndex, SIGNAL_INDEX_DROP, SIGNAL_INDEX_TABLES, SignalIndex } from './signal-index';

export type { ListFilter, ListPage } from './trigger-list';

export interface ReadModel extends SignalIndex {
  /** The resource JSON text and version, or undefined when unknown or deleted. */
  getJson(id: string): { json: string; version: number } | undefined;
  get(id: string): TriggerView | undefined;
  list(filter: ListFilter, limit: number, after: string | undefined): ListPage;
  /** Active triggers for one signal of one content type (the dispatch index). */
  matching(signal: string, appLabel: string, modelName: string): TriggerView[];
  /** Up to `limit` triggers (active or not) with any signal for one content type, by id: why a signal did not match them. */
  watching(appLabel: string, modelName: string, limit: number): WatchingTrigger[];
  checkpoint(): bigint | 'start';
  /**
   * Applies a batch in one transaction; events at or before the stored checkpoint are skipped.
   * An event that cannot be applied throws, after the events before it were committed.
   */
  apply(events: readonly StoredEvent[]): bigint | 'start';
  reset(): void;
  /** Why the model cannot be used (its file is damaged or was replaced), or undefined. */
  fault(): string | undefined;
  /**
   * Moves a damaged file aside (if no other process did yet) and opens a fresh one. Until each
   * part has caught up again (`recovered`), its reads answer ReadModelUnavailable (503), never
   * a half-built answer (a 404 for a trigger that exists).
   */
  rebuild(): void;
  /** The triggers are rebuilding from the first event (since `rebuild`). */
  recovering(): boolean;
  /** The triggers have caught up with the store since the rebuild: their reads answer again. */
  recovered(): void;
  /** As `recovering` and `recovered`, for the signal index. */
  signalsRecovering(): boolean;
  signalsRecovered(): void;
  close(): void;
}

type ModelPart = 'triggers' | 'signals';

export interface WatchingTrigger { id: string; version: number; active: boolean; signals: string[] }

/** The read model cannot answer now (its file is damaged; a rebuild is under way). */
export class ReadModelUnavailable extends Error {
  constructor(readonly reason: string) {
    super(`the read model is unavailable (${reason}); it is being rebuilt from the event store`);
    this.name = 'ReadModelUnavailable';
  }
}

export interface ReadModelOptions {
  readonly log?: Logger;
  /** A list page stops before this many bytes (tests pass a small one). */
  readonly maxPageBytes?: number;
}

interface Row { id: string; version: number; created_at: string; updated_at: string; json: string; deactivated_reason: string | null }

/** The definition is the resource without its server fields (one JSON text per row, not two). */
const rowToView = (r: Row): TriggerView => {
  const { id: _id, version: _version, created_at: _created, updated_at: _updated, deactivated_reason: _reason, ...definition } = JSON.parse(r.json) as TriggerResource;
  return {
    id: r.id, definition, version: r.version, created_at: r.created_at, updated_at: r.updated_at,
    ...(r.deactivated_reason === null ? {} : { deactivated_reason: r.deactivated_reason }),
  };
};

/** Bump when the tables change: an older file is then rebuilt from the events. */
const SCHEMA_VERSION = 7;
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS triggers (
    id TEXT PRIMARY KEY, active INTEGER NOT NULL, version INTEGER NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL, json TEXT NOT NULL, deactivated_reason TEXT);
  -- What ?q= searches, apart from the wide rows: a scan reads only this.
  CREATE TABLE IF NOT EXISTS trigger_search (id TEXT PRIMARY KEY, text TEXT NOT NULL) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS trigger_keys (
    trigger_id TEXT NOT NULL, signal TEXT NOT NULL, app_label TEXT NOT NULL, model_name TEXT NOT NULL);
  CREATE UNIQUE INDEX IF NOT EXISTS trigger_keys_by_trigger ON trigger_keys (trigger_id, signal, app_label, model_name);
  CREATE INDEX IF NOT EXISTS trigger_keys_for_dispatch ON trigger_keys (signal, app_label, model_name, trigger_id);
  CREATE TABLE IF NOT EXISTS checkpoint (name TEXT PRIMARY KEY, position TEXT NOT NULL);
  ${SIGNAL_INDEX_TABLES}`;

/** An event of a batch failed: the batch is rolled back and applied again event by event. */
class BatchFailed extends Error {}

type Queries = Omit<ReadModel, 'fault' | 'rebuild' | 'recovering' | 'recovered' | 'signalsRecovering' | 'signalsRecovered'>;

/** What `?q=` searches: each content type as `app_label.model_name` and each webhook URL, lower case. */
const searchTextOf = (d: TriggerView['definition']) => [
  ...d.content_types.map((ct) => `${ct.app_label}.${ct.model_name}`), ...d.webhooks.map((w) => w.url),
].join('\n').toLowerCase();

/** The statements over one open file. */
const bind = (db: Database.Database, maxPageBytes: number): Queries => {
  if (db.pragma('user_version', { simple: true }) !== SCHEMA_VERSION) {
    // A new layout: drop the old tables; the runner rebuilds them from the events.
    db.exec(`DROP TABLE IF EXISTS triggers; DROP TABLE IF EXISTS trigger_keys; DROP TABLE IF EXISTS trigger_search; DROP TABLE IF EXISTS checkpoint; ${SIGNAL_INDEX_DROP}`);
    db.exec(SCHEMA);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }
  const q = {
    getRow: db.prepare<[string], Row>('SELECT * FROM triggers WHERE id = ?'),
    getJson: db.prepare<[string], { json: string; version: number }>('SELECT json, version FROM triggers WHERE id = ?'),
    upsert: db.prepare(`INSERT INTO triggers (id, active, version, created_at, updated_at, json, deactivated_reason)
      VALUES (@id, @active, @version, @created_at, @updated_at, @json, @deactivated_reason)
      ON CONFLICT(id) DO UPDATE SET active = @active, version = @version, updated_at = @updated_at,
        json = @json, deactivated_reason = @deactivated_reason`),
    setSearch: db.prepare('INSERT OR REPLACE INTO trigger_search VALUES (?, ?)'),
    removeSearch: db.prepare('DELETE FROM trigger_search WHERE id = ?'),
    remove: db.prepare('DELETE FROM triggers WHERE id = ?'),
    removeKeys: db.prepare('DELETE FROM trigger_keys WHERE trigger_id = ?'),
    addKey: db.prepare('INSERT OR IGNORE INTO trigger_keys VALUES (?, ?, ?, ?)'),
    readCheckpoint: db.prepare<[], { position: string }>("SELECT position FROM checkpoint WHERE name = 'triggers'"),
    writeCheckpoint: db.prepare("INSERT OR REPLACE INTO checkpoint VALUES ('triggers', ?)"),
    matching: db.prepare<[string, string, string], Row>(`SELECT t.* FROM trigger_keys k JOIN triggers t ON t.id = k.trigger_id
      WHERE k.signal = ? AND k.app_label = ? AND k.model_name = ? AND t.active = 1 ORDER BY t.id`),
  };

  // `signal IN (…)` lets the dispatch index serve a query by content type alone. The limit is
  // written into the SQL: SQLite plans by a bound LIMIT and so prepared the statement again on
  // every call (28 µs instead of 3 per signal); a few limits occur, each statement kept.
  const watchingBy = new Map<number, Database.Statement<[string, string], { id: string; version: number; active: number; signals: string }>>();
  const watchingStatement = (limit: number) => {
    let statement = watchingBy.get(limit);
    if (!statement) {
      if (watchingBy.size >= 64) watchingBy.clear();
      statement = db.prepare(`SELECT t.id, t.version, t.active, group_concat(k.signal) AS signals FROM trigger_keys k JOIN triggers t ON t.id = k.trigger_id
        WHERE k.signal IN (${SIGNALS.map((x) => `'${x}'`).join(', ')}) AND k.app_label = ? AND k.model_name = ?
        GROUP BY t.id ORDER BY t.id LIMIT ${Math.max(0, Math.floor(limit))}`);
      watchingBy.set(limit, statement);
    }
    return statement;
  };

  const checkpoint = (): bigint | 'start' => {
    const row = q.readCheckpoint.get();
    return row === undefined ? 'start' : BigInt(row.position);
  };

  const save = (view: TriggerView) => {
    const d = view.definition;
    q.upsert.run({ id: view.id, active: d.active ? 1 : 0, version: view.version, created_at: view.created_at,
      updated_at: view.updated_at, json: JSON.stringify(toResource(view)),
      deactivated_reason: view.deactivated_reason ?? null });
    q.setSearch.run(view.id, searchTextOf(d));
    q.removeKeys.run(view.id);
    for (const { signal } of d.config_signals) {
      for (const ct of d.content_types) q.addKey.run(view.id, signal, contentTypePart(ct.app_label), contentTypePart(ct.model_name));
    }
  };

  const applyOne = (stored: StoredEvent) => {
    const event = readStoredEvent(stored);
    const occurred_at = occurredAt(stored.metadata);
    const current = q.getRow.get(event.data.trigger_id);
    const next = evolveView(current && rowToView(current), event, { revision: Number(stored.revision), occurred_at });
    if (next === null) {
      q.remove.run(event.data.trigger_id);
      q.removeKeys.run(event.data.trigger_id);
      q.removeSearch.run(event.data.trigger_id);
    } else if (next !== undefined && next.version !== current?.version) {
      save(next);
    }
  };
  // A savepoint per event: one that fails leaves no half-applied rows behind.
  const applyOneAlone = db.transaction(applyOne);

  /** The events after the stored checkpoint, applied by `one`; stops at the first that throws. */
  const applyEach = (events: readonly StoredEvent[], one: (e: StoredEvent) => void) => {
    const from = checkpoint();
    let last = from;
    let failed: unknown;
    for (const e of events) {
      if (last !== 'start' && e.position <= last) continue;
      try { one(e); } catch (err) { failed = err; break; }
      last = e.position;
    }
    if (last !== from) q.writeCheckpoint.run(String(last));
    return { last, failed };
  };
  // The whole batch in one transaction (two statements per event fewer than a savepoint each);
  // when an event fails, it is rolled back and applied again event by event, so that the
  // events before the failing one are kept.
  const applyAll = db.transaction((events: readonly StoredEvent[]) => {
    const outcome = applyEach(events, applyOne);
    if (outcome.failed !== undefined) throw new BatchFailed();
    return outcome;
  });
  const applyBySavepoints = db.transaction((events: readonly StoredEvent[]) => applyEach(events, applyOneAlone));
  const apply = (events: readonly StoredEvent[]) => {
    let outcome: { last: bigint | 'start'; failed: unknown };
    try {
      outcome = applyAll.immediate(events);
    } catch (e) {
      if (!(e instanceof BatchFailed)) throw e;
      outcome = applyBySavepoints.immediate(events);
    }
    if (outcome.failed !== undefined) throw outcome.failed;
    return outcome.last;
  };

  const list = bindTriggerList(db, maxPageBytes);

  return {
    getJson: (id) => q.getJson.get(id),
    get: (id) => { const r = q.getRow.get(id); return r && rowToView(r); },
    list,
    matching: (signal, appLabel, modelName) =>
      q.matching.all(signal, contentTypePart(appLabel), contentTypePart(modelName)).map(rowToView),
    watching: (appLabel, modelName, limit) => watchingStatement(limit).all(contentTypePart(appLabel), contentTypePart(modelName))
      .map((r) => ({ id: r.id, version: r.version, active: r.active === 1, signals: r.signals.split(',').sort() })),
    checkpoint,
    apply,
    reset: () => db.exec("DELETE FROM triggers; DELETE FROM trigger_keys; DELETE FROM trigger_search; DELETE FROM checkpoint WHERE name = 'triggers';"),
    ...bindSignalIndex(db),
    close: () => db.close(),
  };
};

/**
 * The trigger read model in its own SQLite file; safe to share between processes. Checked at
 * open; a damaged file found then or later is moved aside and rebuilt (see read-model-file.ts).
 */
export const openReadModel = (file: string, options: ReadModelOptions = {}): ReadModel => {
  const log = options.log ?? silentLogger;
  const maxPageBytes = options.maxPageBytes ?? MAX_LIST_PAGE_BYTES;
  let opened = openCheckedFile(file, log);
  let queries = bind(opened.db, maxPageBytes);
  let fault: string | undefined;
  const rebuilding = new Set<ModelPart>();

  // Every use goes through here: SQLite's "damaged" answers become ReadModelUnavailable (503).
  const guard = <A extends unknown[], R>(f: (q: Queries) => (...a: A) => R) => (...a: A): R => {
    if (fault !== undefined) throw new ReadModelUnavailable(fault);
    try {
      return f(queries)(...a);
    } catch (e) {
      if (!isCorruption(e)) throw e;
      fault = String((e as Error).message ?? e);
      log.error('read model file is damaged', { file, error: fault });
      throw new ReadModelUnavailable(fault);
    }
  };

  /** A read of a part still rebuilding answers 503, as a damaged file does. */
  const read = <A extends unknown[], R>(part: ModelPart, f: (q: Queries) => (...a: A) => R) => {
    const guarded = guard(f);
    return (...a: A): R => {
      if (rebuilding.has(part)) throw new ReadModelUnavailable(`its ${part} are being rebuilt`);
      return guarded(...a);
    };
  };

  return {
    getJson: read('triggers', (q) => q.getJson),
    get: read('triggers', (q) => q.get),
    list: read('triggers', (q) => q.list),
    matching: read('triggers', (q) => q.matching),
    watching: read('triggers', (q) => q.watching),
    checkpoint: guard((q) => q.checkpoint),
    apply: guard((q) => q.apply),
    reset: guard((q) => q.reset),
    signalCheckpoint: guard((q) => q.signalCheckpoint),
    applySignals: guard((q) => q.applySignals),
    resetSignals: guard((q) => q.resetSignals),
    signalPage: read('signals', (q) => q.signalPage),
    removeSignalsBefore: guard((q) => q.removeSignalsBefore),
    fault: () => fault ?? (inodeOf(file) === opened.ino ? undefined : 'the read model file was replaced by another process'),
    rebuild: () => {
      if (fault !== undefined) moveAside(file, opened.ino, log);
      try { queries.close(); } catch { /* a damaged file may refuse even this */ }
      opened = openCheckedFile(file, log);
      queries = bind(opened.db, maxPageBytes);
      fault = undefined;
      rebuilding.add('triggers').add('signals');
    },
    recovering: () => rebuilding.has('triggers'),
    recovered: () => { rebuilding.delete('triggers'); },
    signalsRecovering: () => rebuilding.has('signals'),
    signalsRecovered: () => { rebuilding.delete('signals'); },
    close: () => queries.close(),
  };
};
