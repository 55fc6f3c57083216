import Database from 'better-sqlite3';
import { Checkpoint, StoredEvent } from '../event-store/port';
import { contentTypePart } from '../model/triggers/policy';
import { occurredAt } from '../model/triggers/events';
import { readStoredEvent } from '../model/triggers/stored-events';
import { evolveView, toResource, TriggerView } from './trigger-view';
import { rowToView, Statements, storedCheckpoint } from './read-model-statements';

/** Applying trigger events to the read model's tables. */

/** An event of a batch failed: the batch is rolled back and applied again event by event. */
class BatchFailed extends Error {}

/** What `?q=` searches: each content type as `app_label.model_name` and each webhook URL, lower case. */
const searchTextOf = (d: TriggerView['definition']) =>
  [...d.content_types.map((ct) => `${ct.app_label}.${ct.model_name}`), ...d.webhooks.map((w) => w.url)].join('\n').toLowerCase();

/** `known`: the trigger has rows already (their keys are replaced); a new one has none to remove. */
const save = (q: Statements, view: TriggerView, known: boolean) => {
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

const applyOne = (q: Statements, stored: StoredEvent) => {
  const event = readStoredEvent(stored);
  const occurred_at = occurredAt(stored.metadata);
  const current = q.getRow.get(event.data.trigger_id);
  const next = evolveView(current && rowToView(current), event, { revision: Number(stored.revision), occurred_at });
  if (next === null) {
    q.remove.run(event.data.trigger_id);
    q.removeKeys.run(event.data.trigger_id);
    q.removeSearch.run(event.data.trigger_id);
  } else if (next !== undefined && next.version !== current?.version) {
    save(q, next, current !== undefined);
  }
};

/** The events after the stored checkpoint, applied by `one`; stops at the first that throws. */
const applyEach = (q: Statements, events: readonly StoredEvent[], one: (e: StoredEvent) => void) => {
  const from = storedCheckpoint(q);
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

/**
 * Applies a batch and gives the checkpoint it reached; throws what the first failing event threw,
 * the events before it kept.
 */
export const bindApply = (db: Database.Database, q: Statements) => {
  const one = (e: StoredEvent) => applyOne(q, e);
  // A savepoint per event: one that fails leaves no half-applied rows behind.
  const oneAlone = db.transaction(one);
  // The whole batch in one transaction (two statements per event fewer than a savepoint each);
  // when an event fails, it is rolled back and applied again event by event, so that the
  // events before the failing one are kept.
  const applyAll = db.transaction((events: readonly StoredEvent[]) => {
    const outcome = applyEach(q, events, one);
    if (outcome.failed !== undefined) throw new BatchFailed();
    return outcome;
  });
  const applyBySavepoints = db.transaction((events: readonly StoredEvent[]) => applyEach(q, events, oneAlone));
  return (events: readonly StoredEvent[]): Checkpoint => {
    let outcome: { last: Checkpoint; failed: unknown };
    try {
      outcome = applyAll.immediate(events);
    } catch (e) {
      if (!(e instanceof BatchFailed)) throw e;
      outcome = applyBySavepoints.immediate(events);
    }
    if (outcome.failed !== undefined) throw outcome.failed;
    return outcome.last;
  };
};
