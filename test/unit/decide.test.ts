import * as E from 'fp-ts/Either';
import { decide, TriggerCommand } from '../../src/model/triggers/decide';
import { TriggerEvent } from '../../src/model/triggers/events';
import { evolve, initialState } from '../../src/model/triggers/trigger';
import { TriggerDefinition } from '../../src/model/triggers/codecs';

const id = '01900000-0000-7000-8000-000000000001';
const def: TriggerDefinition = {
  config_signals: [{ signal: 'post_save' }],
  content_types: [{ app_label: 'shop', model_name: 'order' }],
  webhooks: [{ url: 'https://hooks.example.com/', http_method: 'POST' }],
  msg_broker_queues: [],
  active: true,
};
const created: TriggerEvent = { type: 'TriggerCreated', data: { schema_version: 1, trigger_id: id, definition: def } };
const deleted: TriggerEvent = { type: 'TriggerDeleted', data: { schema_version: 1, trigger_id: id } };

const given = (...events: TriggerEvent[]) => ({
  when: (command: TriggerCommand) => decide(command, events.reduce(evolve, initialState)),
});
const replace = (definition: TriggerDefinition): TriggerCommand => ({ type: 'ReplaceTrigger', data: { trigger_id: id, definition } });

test('create on a new stream records TriggerCreated', () => {
  expect(given().when({ type: 'CreateTrigger', data: { trigger_id: id, definition: def } })).toEqual(E.right([created]));
});

test('create on an existing or deleted stream is AlreadyExists', () => {
  const cmd: TriggerCommand = { type: 'CreateTrigger', data: { trigger_id: id, definition: def } };
  expect(given(created).when(cmd)).toEqual(E.left({ _tag: 'AlreadyExists', id }));
  expect(given(created, deleted).when(cmd)).toEqual(E.left({ _tag: 'AlreadyExists', id }));
});

test('replace with the same definition records nothing (key order does not matter)', () => {
  const reordered = {
    active: true,
    msg_broker_queues: [],
    webhooks: def.webhooks,
    content_types: def.content_types,
    config_signals: def.config_signals,
  };
  expect(given(created).when(replace(reordered))).toEqual(E.right([]));
});

test('replace that only flips active records (de)activation', () => {
  expect(given(created).when(replace({ ...def, active: false }))).toEqual(
    E.right([{ type: 'TriggerDeactivated', data: { schema_version: 1, trigger_id: id } }]),
  );
  const off = { type: 'TriggerDeactivated', data: { schema_version: 1, trigger_id: id } } as const;
  expect(given(created, off).when(replace(def))).toEqual(
    E.right([{ type: 'TriggerActivated', data: { schema_version: 1, trigger_id: id } }]),
  );
});

test('replace with other changes records TriggerUpdated with the full definition', () => {
  const next = { ...def, active: false, payload: { a: 1 } };
  expect(given(created).when(replace(next))).toEqual(
    E.right([{ type: 'TriggerUpdated', data: { schema_version: 1, trigger_id: id, definition: next } }]),
  );
});

test('replace or delete of an unknown or deleted trigger is NotFound', () => {
  const del: TriggerCommand = { type: 'DeleteTrigger', data: { trigger_id: id } };
  expect(given().when(replace(def))).toEqual(E.left({ _tag: 'NotFound', ids: [id] }));
  expect(given(created, deleted).when(del)).toEqual(E.left({ _tag: 'NotFound', ids: [id] }));
  expect(given(created).when(del)).toEqual(E.right([deleted]));
});
