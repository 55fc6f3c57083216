import { join } from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { openSqliteStore } from '../src/event-store/sqlite';
import { streamOf } from '../src/triggers/model/events';
import { TriggerDefinition } from '../src/triggers/model/codecs';

/** A realistic trigger (a public URL: the API refuses loopback targets by default); every 4th on post_delete of crm.lead, so a filtered list has matches. */
export const benchDefinition = (i: number): TriggerDefinition => ({
  config_signals: [{ signal: i % 4 === 0 ? 'post_delete' : 'post_save' }],
  content_types: [i % 4 === 0 ? { app_label: 'crm', model_name: 'lead' } : { app_label: 'shop', model_name: 'order' }],
  webhooks: [{ url: `https://hooks.example.com/hook/${i}`, http_method: 'POST', headers: { 'x-trigger': String(i) }, timeout_secs: 5 }],
  msg_broker_queues: [],
  active: i % 10 !== 0,
  payload: { order: '{{ instance.id }}', total: '{{ instance.total }}', note: `trigger ${i}` },
});

/** Writes `count` TriggerCreated events straight into a SQLite store under `dataDir`; returns the ids. */
export const seedTriggers = async (dataDir: string, count: number): Promise<string[]> => {
  const store = openSqliteStore(join(dataDir, 'events.sqlite'));
  const ids: string[] = [];
  const occurred_at = new Date().toISOString();
  for (let i = 0; i < count; i++) {
    const id = uuidv7();
    ids.push(id);
    await store.append(streamOf(id), [{
      type: 'TriggerCreated',
      data: { schema_version: 1, trigger_id: id, definition: benchDefinition(i) },
      metadata: { actor: 'bench', request_id: `seed-${i}`, occurred_at },
    }], 'no_stream');
  }
  await store.close();
  return ids;
};
