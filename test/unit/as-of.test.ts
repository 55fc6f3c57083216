import { StoredEvent } from '../../src/event-store/port';
import { parseAsOf, triggerAsOf } from '../../src/audit/as-of';
import { pageOf } from '../../src/audit/feed';

const ID = '0190a5d8-0000-7000-8000-000000000001';
const definition = (active: boolean) => ({ config_signals: [{ signal: 'post_save' }], content_types: [{ app_label: 'a', model_name: 'b' }], active, webhooks: [], msg_broker_queues: [] });
const at = (type: string, revision: number, occurred_at: string, data: Record<string, unknown> = {}): StoredEvent => ({
  type, streamId: `action_trigger-${ID}`, revision: BigInt(revision), position: BigInt(revision + 1),
  data: { schema_version: 1, trigger_id: ID, ...data }, metadata: { actor: 'a', request_id: 'r', occurred_at },
});

test('the fold stops at the first event after as_of, so a clock that went backwards never mixes states', () => {
  const events = [
    at('TriggerCreated', 0, '2026-01-01T00:00:00.000Z', { definition: definition(true) }),
    at('TriggerUpdated', 1, '2026-01-03T00:00:00.000Z', { definition: definition(false) }),
    // Recorded by a process whose clock was behind: still after the update in the stream.
    at('TriggerDeleted', 2, '2026-01-02T00:00:00.000Z'),
  ];
  expect(triggerAsOf(events, Date.parse('2026-01-02T12:00:00Z'))?.version).toBe(1);
  expect(triggerAsOf(events, Date.parse('2026-01-03T00:00:00Z'))).toBeUndefined();
  expect(triggerAsOf(events, Date.parse('2025-12-31T23:59:59.999Z'))).toBeUndefined();
});

test('parseAsOf takes RFC 3339 with any offset and refuses the rest with the field path', () => {
  expect(parseAsOf('2026-01-01T02:00:00+02:00')).toEqual({ _tag: 'Right', right: Date.parse('2026-01-01T00:00:00Z') });
  expect(parseAsOf(['2026-01-01T00:00:00Z'])).toMatchObject({ _tag: 'Left', left: { path: 'query.as_of' } });
  expect(parseAsOf('2026-02-30T00:00:00Z')).toMatchObject({ _tag: 'Left' });
});

test('a feed page stops before its byte bound, keeping at least one event, and says it was cut', () => {
  const events = [0, 1, 2].map((n) => ({ ...at('TriggerActivated', n, '2026-01-01T00:00:00Z'), data: { pad: 'x'.repeat(1000) } }));
  expect(pageOf(events, 10)).toMatchObject({ cut: true, last: events[0] });
  expect(pageOf(events, 2500)).toMatchObject({ cut: true, last: events[1] });
  expect(pageOf(events).cut).toBe(false);
});
