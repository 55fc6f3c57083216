import { StoredEvent, UnreadableEvent } from '../../src/event-store/port';
import { acceptedEvent, redeliveryEvent, SIGNAL_ACCEPTED, storedSignalOf } from '../../src/model/signals/signal-record';

/** A signal's events are decoded when read back, as trigger events are: a shape this build never wrote is refused, not trusted. */
const stored = (type: string, data: Record<string, unknown>, revision = 0n): StoredEvent => ({
  streamId: 'signal-s1',
  type,
  data,
  metadata: { accepted_at: '2026-01-01T00:00:00.000Z', requested_at: '2026-01-01T00:00:01.000Z' },
  revision,
  position: revision + 1n,
});

const record = {
  signal: {
    id: 's1',
    signal: 'post_save' as const,
    app_label: 'shop',
    model_name: 'order',
    instance: { id: 1 },
    occurred_at: '2026-01-01T00:00:00.000Z',
  },
  plan: {
    triggers: [{ triggerId: 't', version: 1 }],
    actions: [{ deliveryId: 's1.t.w0', triggerId: 't', version: 1, kind: 'webhook' as const, index: 0, timeoutSecs: 10 }],
  },
  not_matched: [],
  not_matched_truncated: false,
};

test('what the service writes reads back the same', () => {
  const redelivery = {
    number: 1,
    workflow_id: 'signal-s1-redelivery-1',
    mode: 'current' as const,
    delivery_ids: ['s1.t.w0'],
    plan: record.plan,
  };
  const s = storedSignalOf([
    stored(SIGNAL_ACCEPTED, acceptedEvent(record, new Date()).data),
    stored(redeliveryEvent(redelivery, new Date()).type, redeliveryEvent(redelivery, new Date()).data, 1n),
  ]);
  expect(s?.record).toEqual(record);
  expect(s?.redeliveries.map(({ number, mode, plan }) => ({ number, mode, plan }))).toEqual([
    { number: 1, mode: 'current', plan: record.plan },
  ]);
});

test('an acceptance or redelivery of another shape is an UnreadableEvent naming what is wrong', () => {
  const noTimeout = { ...record, plan: { ...record.plan, actions: [{ ...record.plan.actions[0], timeoutSecs: undefined }] } };
  expect(() => storedSignalOf([stored(SIGNAL_ACCEPTED, noTimeout)])).toThrow(UnreadableEvent);
  expect(() => storedSignalOf([stored(SIGNAL_ACCEPTED, noTimeout)])).toThrow(/signal-s1@0 cannot be read: .*timeoutSecs/);
  const badMode = { number: 1, workflow_id: 'w', mode: 'sometimes', delivery_ids: [], plan: record.plan };
  expect(() => storedSignalOf([stored(SIGNAL_ACCEPTED, record), stored('SignalRedeliveryRequested', badMode, 1n)])).toThrow(
    /signal-s1@1 cannot be read: .*mode/,
  );
});

test("a refusal is decoded too: the first for the signal's own dispatch and the first for each redelivery count", () => {
  const redelivery = {
    number: 1,
    workflow_id: 'signal-s1-redelivery-1',
    mode: 'current' as const,
    delivery_ids: ['s1.t.w0'],
    plan: record.plan,
  };
  const s = storedSignalOf([
    stored(SIGNAL_ACCEPTED, record),
    stored('SignalDispatchRefused', { reason: 'first' }, 1n),
    stored('SignalRedeliveryRequested', redelivery, 2n),
    stored('SignalDispatchRefused', { reason: 'redelivery refused', redelivery: 1 }, 3n),
    stored('SignalDispatchRefused', { reason: 'second' }, 4n),
  ]);
  expect([s?.refused, s?.redeliveries[0]?.refused, s?.revision]).toEqual(['first', 'redelivery refused', 4n]);
  expect(() => storedSignalOf([stored(SIGNAL_ACCEPTED, record), stored('SignalDispatchRefused', { reason: 7 }, 1n)])).toThrow(
    /signal-s1@1 cannot be read: .*reason/,
  );
});

test('an event of a type a signal stream never holds is an UnreadableEvent, not skipped', () => {
  expect(() => storedSignalOf([stored(SIGNAL_ACCEPTED, record), stored('SignalRenamed', {}, 1n)])).toThrow(
    /signal-s1@1 cannot be read: SignalRenamed is not a signal event/,
  );
});
