import type { ResolvedEvent } from '@kurrent/kurrentdb-client';
import { toStored } from '../../src/event-store/kurrentdb-events';
import { readStoredEvent } from '../../src/model/triggers/stored-events';
import { UnreadableEvent } from '../../src/event-store/port';

/**
 * How the KurrentDB adapter turns a read event into a stored one (no server here: these are the
 * client's own event records, built as it builds them). An event not written as a JSON object keeps
 * its revision and fails its reader by name; it is never skipped (that shifted every later version).
 */
const resolved = (event: Record<string, unknown>): ResolvedEvent =>
  ({
    event: {
      streamId: 'action_trigger-t1',
      revision: 3n,
      position: { commit: 40n, prepare: 40n },
      type: 'TriggerUpdated',
      id: 'e',
      created: new Date(),
      contentType: 'application/octet-stream',
      ...event,
    },
    commitPosition: 40n,
  }) as unknown as ResolvedEvent;

test('a JSON event keeps its data, revision and position', () => {
  const data = { schema_version: 1, trigger_id: 't1' };
  expect(toStored(resolved({ isJson: true, data, metadata: { actor: 'a' } }))).toEqual({
    streamId: 'action_trigger-t1',
    revision: 3n,
    position: 40n,
    type: 'TriggerUpdated',
    data,
    metadata: { actor: 'a' },
  });
});

test.each([
  ['binary data', { isJson: false, data: new Uint8Array([1, 2, 3]), metadata: new Uint8Array() }, 'data is not JSON'],
  ['a JSON array', { isJson: true, data: [1, 2], metadata: {} }, 'data is not a JSON object'],
  ['JSON null', { isJson: true, data: null, metadata: null }, 'data is not a JSON object'],
])('an event with %s keeps its place and its reader fails naming stream, revision and why', (_, event, why) => {
  const stored = toStored(resolved(event))!;
  expect(stored).toMatchObject({ revision: 3n, position: 40n, type: 'TriggerUpdated', metadata: {} });
  expect(() => readStoredEvent(stored)).toThrow(UnreadableEvent);
  expect(() => readStoredEvent(stored)).toThrow(`stored event action_trigger-t1@3 cannot be read: ${why}`);
});

test('a link whose event is gone gives nothing', () => {
  expect(toStored({ link: undefined, event: undefined } as unknown as ResolvedEvent)).toBeUndefined();
});
