import { readStoredEvent, Upcaster } from '../../src/model/triggers/stored-events';
import { UnreadableEvent } from '../../src/event-store/port';

const id = '01900000-0000-7000-8000-000000000001';
const at = (type: string, data: unknown) => ({ type, data, streamId: `action_trigger-${id}`, revision: 3n });
const definition = {
  config_signals: [{ signal: 'post_save' }],
  content_types: [{ app_label: 'shop', model_name: 'order' }],
  webhooks: [{ url: 'http://10.0.0.1/no-longer-allowed', http_method: 'post', note: 'extra' }],
  msg_broker_queues: [{ name: 'a-broker-since-removed', parameters: { q: '{{ env.GONE }}' } }],
  active: true,
  payload: { x: '{{ instance.unknown.path }}' },
  future_field: 1,
};

test("a v1 event that today's request rules would refuse still loads, unknown keys dropped", () => {
  const event = readStoredEvent(at('TriggerCreated', { schema_version: 1, trigger_id: id, definition, extra: true }));
  expect(event).toEqual({
    type: 'TriggerCreated',
    data: {
      schema_version: 1,
      trigger_id: id,
      definition: {
        config_signals: [{ signal: 'post_save' }],
        content_types: [{ app_label: 'shop', model_name: 'order' }],
        webhooks: [{ url: 'http://10.0.0.1/no-longer-allowed', http_method: 'POST' }],
        msg_broker_queues: [{ name: 'a-broker-since-removed', parameters: { q: '{{ env.GONE }}' } }],
        active: true,
        payload: { x: '{{ instance.unknown.path }}' },
      },
    },
  });
});

test('older versions are upcast step by step to the current one', () => {
  // A synthetic history: v0 had `enabled`, v1 renamed it to `active`, v2 wrapped the id.
  const upcasters: Record<number, Upcaster> = {
    0: (type, d) => {
      if (type !== 'TriggerCreated' && type !== 'TriggerUpdated') return { ...d, schema_version: 1 };
      const { enabled, ...def } = d.definition as Record<string, unknown>;
      return { ...d, schema_version: 1, definition: { ...def, active: enabled } };
    },
    1: (_type, d) => ({ ...d, schema_version: 2 }),
  };
  const { active, ...v0def } = definition;
  const event = readStoredEvent(
    at('TriggerUpdated', { schema_version: 0, trigger_id: id, definition: { ...v0def, enabled: !active } }),
    2,
    upcasters,
  );
  expect(event.type).toBe('TriggerUpdated');
  expect(event.data.schema_version).toBe(2);
  expect(event.type === 'TriggerUpdated' && event.data.definition.active).toBe(false);
  expect(readStoredEvent(at('TriggerDeleted', { schema_version: 0, trigger_id: id }), 2, upcasters)).toEqual({
    type: 'TriggerDeleted',
    data: { schema_version: 2, trigger_id: id },
  });
});

test.each([
  ['an unknown type', at('TriggerRenamed', { schema_version: 1, trigger_id: id }), /unknown event type TriggerRenamed/],
  ['a newer schema_version', at('TriggerDeleted', { schema_version: 2, trigger_id: id }), /schema_version 2 is newer/],
  ['no schema_version', at('TriggerDeleted', { trigger_id: id }), /schema_version is missing/],
  ['a bad shape', at('TriggerCreated', { schema_version: 1, trigger_id: id, definition: { ...definition, active: 'yes' } }), /active/],
  ['no trigger id', at('TriggerActivated', { schema_version: 1 }), /trigger_id/],
])('%s is an error naming stream and revision', (_name, raw, reason) => {
  expect(() => readStoredEvent(raw)).toThrow(UnreadableEvent);
  expect(() => readStoredEvent(raw)).toThrow(new RegExp(`stored event action_trigger-${id}@3 cannot be read`));
  expect(() => readStoredEvent(raw)).toThrow(reason);
});
