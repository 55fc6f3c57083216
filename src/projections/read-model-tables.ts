import Database from 'better-sqlite3';
import { contentTypePart } from '../model/triggers/policy';
import { SIGNALS } from '../model/triggers/codecs';
import { bindTriggerList } from './trigger-list';
import { bindSignalIndex } from './signal-index';
import type { ReadModel } from './read-model';
import { cachedForSignal } from './for-signal-cache';
import { ensureSchema, prepareStatements, rowToView, storedCheckpoint } from './read-model-statements';
import { bindApply } from './read-model-apply';

/** The read model's queries over one open file (read-model.ts guards their use). */

export type Queries = Omit<ReadModel, 'fault' | 'rebuild' | 'recovering' | 'recovered' | 'signalsRecovering' | 'signalsRecovered'>;

type WatchingRow = { id: string; version: number; active: number; signals: string };

/**
 * The triggers, active or not, that watch a content type, `limit` at the most.
 * `signal IN (…)` lets the dispatch index serve a query by content type alone. The limit is
 * written into the SQL: SQLite plans by a bound LIMIT and so prepared the statement again on
 * every call (28 µs instead of 3 per signal); a few limits occur, each statement kept.
 */
const bindWatching = (db: Database.Database): Queries['watching'] => {
  const watchingBy = new Map<number, Database.Statement<[string, string], WatchingRow>>();
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
  return (appLabel, modelName, limit) =>
    watchingStatement(limit)
      .all(contentTypePart(appLabel), contentTypePart(modelName))
      .map((r) => ({ id: r.id, version: r.version, active: r.active === 1, signals: r.signals.split(',').sort() }));
};

/** The statements over one open file. */
export const bind = (db: Database.Database, maxPageBytes: number): Queries => {
  ensureSchema(db);
  const q = prepareStatements(db);
  const watching = bindWatching(db);
  const checkpoint = () => storedCheckpoint(q);
  return {
    getJson: (id) => q.getJson.get(id),
    get: (id) => {
      const r = q.getRow.get(id);
      return r && rowToView(r);
    },
    list: bindTriggerList(db, maxPageBytes),
    matching: (signal, appLabel, modelName) => q.matching.all(signal, contentTypePart(appLabel), contentTypePart(modelName)).map(rowToView),
    watching,
    // better-sqlite3 reads synchronously: nothing is applied between the two statements.
    forSignal: cachedForSignal(checkpoint, (signal, appLabel, modelName, othersLimit) => {
      const rows = q.matching.all(signal, contentTypePart(appLabel), contentTypePart(modelName));
      const matched = rows.map(rowToView);
      const value = { matching: matched, watching: watching(appLabel, modelName, matched.length + othersLimit) };
      return { value, chars: rows.reduce((n, r) => n + r.json.length, 0) };
    }),
    checkpoint,
    apply: bindApply(db, q),
    reset: () =>
      db.exec(
        "DELETE FROM triggers; DELETE FROM trigger_keys; DELETE FROM trigger_search; DELETE FROM checkpoint WHERE name = 'triggers';",
      ),
    ...bindSignalIndex(db),
    close: () => db.close(),
  };
};
