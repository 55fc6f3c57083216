import { join } from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import type { EventStore } from '../src/event-store/port';
import { openSqliteStore } from '../src/event-store/sqlite';
import { streamOf } from '../src/model/triggers/events';
import { TriggerDefinition } from '../src/model/triggers/codecs';

/** A realistic trigger (a public URL: the API refuses loopback targets by default); every 4th on post_delete of crm.lead, so a filtered list has matches. */
export const benchDefinition = (i: number): TriggerDefinition => ({
  config_signals: [{ signal: i % 4 === 0 ? 'post_delete' : 'post_save' }],
  content_types: [i % 4 === 0 ? { app_label: 'crm', model_name: 'lead' } : { app_label: 'shop', model_name: 'order' }],
  webhooks: [{ url: `https://hooks.example.com/hook/${i}`, http_method: 'POST', headers: { 'x-trigger': String(i) }, timeout_secs: 5 }],
  msg_broker_queues: [],
  active: i % 10 !== 0,
  payload: { order: '{{ instance.id }}', total: '{{ instance.total }}', note: `trigger ${i}` },
});

/**
 * Writes `count` TriggerCreated events straight into a store (the SQLite one under `dataDir`, or
 * the one given), 200 appends at a time so that they share group commits; returns the ids.
 */
export const seedTriggers = async (target: string | EventStore, count: number): Promise<string[]> => {
  const store = typeof target === 'string' ? openSqliteStore(join(target, 'events.sqlite')) : target;
  const ids = Array.from({ length: count }, () => uuidv7());
  const occurred_at = new Date().toISOString();
  for (let from = 0; from < count; from += 200) {
    await Promise.all(
      ids.slice(from, from + 200).map((id, k) =>
        store.append(
          streamOf(id),
          [
            {
              type: 'TriggerCreated',
              data: { schema_version: 1, trigger_id: id, definition: benchDefinition(from + k) },
              metadata: { actor: 'bench', request_id: `seed-${from + k}`, occurred_at },
            },
          ],
          'no_stream',
        ),
      ),
    );
  }
  if (typeof target === 'string') await store.close();
  return ids;
};
