import Database from 'better-sqlite3';
import { StoredEvent } from '../event-store/port';
import { contentTypePart } from '../model/triggers/policy';
import { SIGNALS } from '../model/triggers/codecs';
import { occurredAt } from '../model/triggers/events';
import { readStoredEvent } from '../model/triggers/stored-events';
import { evolveView, toResource, TriggerResource, TriggerView } from './trigger-view';
import { bindTriggerList } from './trigger-list';
import { bindSignalIndex, SIGNAL_INDEX_DROP, SIGNAL_INDEX_TABLES } from './signal-index';
import type { ReadModel } from './read-model';
import { cachedForSignal } from './for-signal-cache';

/** The read model's tables and the statements over one open file (read-model.ts guards their use). */

interface Row {
  id: string;
  version: number;
  created_at: string;
  updated_at: string;
  json: string;
  deactivated_reason: string | null;
}

/** The definition is the resource without its server fields (one JSON text per row, not two). */
const rowToView = (r: Row): TriggerView => {
  const {
    id: _id,
    version: _version,
    created_at: _created,
    updated_at: _updated,
    deactivated_reason: _reason,
    ordering,
    ...rest
  } = JSON.parse(r.json) as TriggerResource;
  // The resource says `none`; a definition keeps only `per_instance` (as the events do).
  const definition = { ...rest, ...(ordering === 'per_instance' ? { ordering } : {}) };
  return {
    id: r.id,
    definition,
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
    ...(r.deactivated_reason === null ? {} : { deactivated_reason: r.deactivated_reason }),
  };
};

/** Bump when the tables change: an older file is then rebuilt from the events. */
const SCHEMA_VERSION = 8;
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

export type Queries = Omit<ReadModel, 'fault' | 'rebuild' | 'recovering' | 'recovered' | 'signalsRecovering' | 'signalsRecovered'>;

/** What `?q=` searches: each content type as `app_label.model_name` and each webhook URL, lower case. */
const searchTextOf = (d: TriggerView['definition']) =>
  [...d.content_types.map((ct) => `${ct.app_label}.${ct.model_name}`), ...d.webhooks.map((w) => w.url)].join('\n').toLowerCase();

/** The statements over one open file. */
export const bind = (db: Database.Database, maxPageBytes: number): Queries => {
  if (db.pragma('user_version', { simple: true }) !== SCHEMA_VERSION) {
    // A new layout: drop the old tables; the runner rebuilds them from the events.
    db.exec(
      `DROP TABLE IF EXISTS triggers; DROP TABLE IF EXISTS trigger_keys; DROP TABLE IF EXISTS trigger_search; DROP TABLE IF EXISTS checkpoint; ${SIGNAL_INDEX_DROP}`,
    );
    db.exec(SCHEMA);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }
  const q = {
    getRow: db.prepare<[string], Row>('SELECT * FROM triggers WHERE id = ?'),
    getJson: db.prepare<[string], { json: string; version: number }>('SELECT json, version FROM triggers WHERE id = ?'),
    // Positional parameters: binding named ones from an object cost ~1 µs more per row.
    upsert: db.prepare<[string, number, number, string, string, string, string | null]>(`INSERT INTO triggers
      (id, active, version, created_at, updated_at, json, deactivated_reason) VALUES (?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT(id) DO UPDATE SET active = excluded.active, version = excluded.version, updated_at = excluded.updated_at,
        json = excluded.json, deactivated_reason = excluded.deactivated_reason`),
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
  const watchingBy = new Map<
    number,
    Database.Statement<[string, string], { id: string; version: number; active: number; signals: string }>
  >();
  const watchingStatement = (limit: number) => {
    let statement = watchingBy.get(limit);
    if (!statement) {
      if (watchingBy.size >= 64) watchingBy.clear();
      statement =
        db.prepare(`SELECT t.id, t.version, t.active, group_concat(k.signal) AS signals FROM trigger_keys k JOIN triggers t ON t.id = k.trigger_id
        WHERE k.signal IN (${SIGNALS.map((x) => `'${x}'`).join(', ')}) AND k.app_label = ? AND k.model_name = ?
        GROUP BY t.id ORDER BY t.id LIMIT ${Math.max(0, Math.floor(limit))}`);
      watchingBy.set(limit, statement);
    }
    return statement;
  };

  const matching: Queries['matching'] = (signal, appLabel, modelName) =>
    q.matching.all(signal, contentTypePart(appLabel), contentTypePart(modelName)).map(rowToView);
  const watching: Queries['watching'] = (appLabel, modelName, limit) =>
    watchingStatement(limit)
      .all(contentTypePart(appLabel), contentTypePart(modelName))
      .map((r) => ({ id: r.id, version: r.version, active: r.active === 1, signals: r.signals.split(',').sort() }));

  const checkpoint = (): bigint | 'start' => {
    const row = q.readCheckpoint.get();
    return row === undefined ? 'start' : BigInt(row.position);
  };

  /** `known`: the trigger has rows already (their keys are replaced); a new one has none to remove. */
  const save = (view: TriggerView, known: boolean) => {
    const d = view.definition;
    q.upsert.run(
      view.id,
      d.active ? 1 : 0,
      view.version,
      view.created_at,
      view.updated_at,
      JSON.stringify(toResource(view)),
      view.deactivated_reason ?? null,
    );
    q.setSearch.run(view.id, searchTextOf(d));
    if (known) q.removeKeys.run(view.id);
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
      save(next, current !== undefined);
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
      try {
        one(e);
      } catch (err) {
        failed = err;
        break;
      }
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
    get: (id) => {
      const r = q.getRow.get(id);
      return r && rowToView(r);
    },
    list,
    matching,
    watching,
    // better-sqlite3 reads synchronously: nothing is applied between the two statements.
    forSignal: cachedForSignal(checkpoint, (signal, appLabel, modelName, othersLimit) => {
      const rows = q.matching.all(signal, contentTypePart(appLabel), contentTypePart(modelName));
      const matched = rows.map(rowToView);
      const value = { matching: matched, watching: watching(appLabel, modelName, matched.length + othersLimit) };
      return { value, chars: rows.reduce((n, r) => n + r.json.length, 0) };
    }),
    checkpoint,
    apply,
    reset: () =>
      db.exec(
        "DELETE FROM triggers; DELETE FROM trigger_keys; DELETE FROM trigger_search; DELETE FROM checkpoint WHERE name = 'triggers';",
      ),
    ...bindSignalIndex(db),
    close: () => db.close(),
  };
};
