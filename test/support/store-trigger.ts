import { randomUUID } from 'node:crypto';
import { EventStore } from '../../src/event-store/port';
import { SCHEMA_VERSION, streamOf } from '../../src/model/triggers/events';
import { ProjectionRunner } from '../../src/projections/runner';

/**
 * Appends a TriggerCreated event straight to the store, as an older API (or a config since
 * changed) would have accepted it, and waits until the read model has it: tests of the checks
 * made again at delivery need triggers today's API refuses.
 */
export const storeTrigger = async (t: { store: EventStore; projection: ProjectionRunner }, definition: Record<string, unknown>) => {
  const id = randomUUID();
  const { position } = await t.store.append(
    streamOf(id),
    [
      {
        type: 'TriggerCreated',
        data: {
          schema_version: SCHEMA_VERSION,
          trigger_id: id,
          definition: { msg_broker_queues: [], webhooks: [], active: true, ...definition },
        },
        metadata: { actor: 'test', request_id: randomUUID(), occurred_at: new Date().toISOString() },
      },
    ],
    'no_stream',
  );
  await t.projection.waitFor(position);
  return id;
};
