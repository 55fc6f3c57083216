import { configFrom, planningOf } from '../../src/config';
import type { StoredEvent } from '../../src/event-store/port';
import type { SignalEnvelope } from '../../src/dispatch/types';
import type { TriggerDefinition } from '../../src/model/triggers/codecs';
import { planOf } from '../../src/model/signals/matching';
import { acceptedEvent, SIGNAL_ACCEPTED, storedSignalOf } from '../../src/model/signals/signal-record';
import { previewTrigger } from '../../src/delivery/preview';
import { previewOptionsOf } from '../../src/triggers/dry-run';

/** A plan records the key of each action's destination limit, only where the config sets one; the dry run shows the limit. */
const config = configFrom({
  allow_private_targets: true,
  webhook_limits: [{ name: 'orders', url_prefix: 'https://hooks.example.com/orders', max_per_second: 2.5, burst: 4 }],
  brokers: {
    limited: {
      broker_type: 'kafka',
      conn_details: { bootstrap_servers: '127.0.0.1:9092' },
      params: { topic: 't' },
      limits: { max_in_flight: 3 },
    },
    free: { broker_type: 'kafka', conn_details: { bootstrap_servers: '127.0.0.1:9092' }, params: { topic: 't' } },
  },
});
const planning = planningOf(config);

const definition: TriggerDefinition = {
  config_signals: [{ signal: 'post_save' }],
  content_types: [{ app_label: 'shop', model_name: 'order' }],
  webhooks: [
    { url: 'https://hooks.example.com/orders/new', http_method: 'POST' },
    { url: 'https://hooks.example.com/audit', http_method: 'POST' },
  ],
  msg_broker_queues: [{ name: 'limited' }, { name: 'free' }],
  active: true,
};
const signal: SignalEnvelope = {
  id: 's1',
  signal: 'post_save',
  app_label: 'shop',
  model_name: 'order',
  instance: { id: 1 },
  occurred_at: '2026-01-01T00:00:00.000Z',
};
const trigger = { id: 't', version: 1, definition };

test('only actions to a limited destination record its key', () => {
  const plan = planOf([trigger], signal, planning);
  expect(plan.actions.map(({ kind, index, pace }) => ({ kind, index, pace }))).toEqual([
    { kind: 'webhook', index: 0, pace: 'webhook:orders' },
    { kind: 'webhook', index: 1, pace: undefined },
    { kind: 'broker', index: 0, pace: 'broker:limited' },
    { kind: 'broker', index: 1, pace: undefined },
  ]);
  expect(plan.actions.filter((a) => 'pace' in a)).toHaveLength(2);
  // No limits in the config: no action records one.
  expect(planOf([trigger], signal, planningOf(configFrom({}))).actions.some((a) => 'pace' in a)).toBe(false);
});

test('a stored plan with pace keys reads back the same; a pace that is not a string is refused', () => {
  const record = { signal, plan: planOf([trigger], signal, planning), not_matched: [], not_matched_truncated: false };
  const stored = (data: unknown): StoredEvent => ({
    streamId: 'signal-s1',
    type: SIGNAL_ACCEPTED,
    data: data as Record<string, unknown>,
    metadata: { accepted_at: '2026-01-01T00:00:00.000Z' },
    revision: 0n,
    position: 1n,
  });
  expect(storedSignalOf([stored(acceptedEvent(record, new Date()).data)])?.record).toEqual(record);
  const bad = { ...record, plan: { ...record.plan, actions: [{ ...record.plan.actions[0], pace: 7 }] } };
  expect(() => storedSignalOf([stored(bad)])).toThrow(/pace/);
});

test("the dry run names each action's limit as the config writes it, and none where none applies", async () => {
  const actions = await previewTrigger(previewOptionsOf(config), trigger, signal, new Date('2026-01-01T00:00:00Z'));
  expect(actions.map((a) => [a.kind, a.index, a.limit])).toEqual([
    ['webhook', 0, { name: 'webhook:orders', max_per_second: 2.5, burst: 4 }],
    ['webhook', 1, undefined],
    ['broker', 0, { name: 'broker:limited', max_in_flight: 3 }],
    ['broker', 1, undefined],
  ]);
});
