import { instanceKeyOf, NO_INSTANCE_KEY, orderingFor, orderWorkflowIdOf } from '../../src/model/signals/instance-key';
import type { SignalEnvelope } from '../../src/dispatch/types';

const TRIGGER = '01900000-0000-7000-8000-000000000001';
const signal = (instance: Record<string, unknown>, instance_key?: string): SignalEnvelope => ({
  id: 's',
  signal: 'post_save',
  app_label: 'shop',
  model_name: 'order',
  instance,
  occurred_at: '2026-01-01T00:00:00Z',
  ...(instance_key !== undefined ? { instance_key } : {}),
});

test('the instance key is instance_key, else instance.pk, else instance.id', () => {
  expect(instanceKeyOf(signal({ pk: 1, id: 2 }, 'k'))).toBe('k');
  expect(instanceKeyOf(signal({ pk: 1, id: 2 }))).toBe('1');
  expect(instanceKeyOf(signal({ id: 'a-7' }))).toBe('a-7');
  // The number and its text are the same instance (a Django pk arrives either way).
  expect(instanceKeyOf(signal({ pk: 42 }))).toBe(instanceKeyOf(signal({ pk: '42' })));
});

test('values that name no instance are passed over: empty text, NaN, infinities, objects, booleans, null', () => {
  expect(instanceKeyOf(signal({ pk: '', id: 3 }))).toBe('3');
  expect(instanceKeyOf(signal({ pk: Number.NaN, id: Number.POSITIVE_INFINITY }))).toBeUndefined();
  expect(instanceKeyOf(signal({ pk: { a: 1 }, id: [1] }))).toBeUndefined();
  expect(instanceKeyOf(signal({ pk: true, id: null }))).toBeUndefined();
  expect(orderingFor(TRIGGER, signal({}))).toEqual({ unordered: NO_INSTANCE_KEY });
});

test('a short plain key names its order as it is; any other key by its hash, bounded in length', () => {
  expect(orderWorkflowIdOf(TRIGGER, 'order-9:a.b_c')).toBe(`ordered-${TRIGGER}-order-9:a.b_c`);
  for (const key of ['a/b', 'a b', 'ördér', '💥', 'x'.repeat(65), 'y'.repeat(100_000), '\u0000']) {
    expect(orderWorkflowIdOf(TRIGGER, key)).toMatch(new RegExp(`^ordered-${TRIGGER}-sha256-[0-9a-f]{40}$`));
  }
});

test("distinct keys never share an order, a plain key spelled like another key's hash included", () => {
  const hashed = orderWorkflowIdOf(TRIGGER, 'a/b').slice(`ordered-${TRIGGER}-`.length);
  expect(orderWorkflowIdOf(TRIGGER, hashed)).not.toBe(orderWorkflowIdOf(TRIGGER, 'a/b'));
  const keys = ['1', '01', '1.0', 'A', 'a', 'a/b', 'a b', hashed, 'x'.repeat(64), 'x'.repeat(65)];
  expect(new Set(keys.map((k) => orderWorkflowIdOf(TRIGGER, k))).size).toBe(keys.length);
});

test('the same key of another trigger is another order', () => {
  expect(orderWorkflowIdOf(TRIGGER, '9')).not.toBe(orderWorkflowIdOf('01900000-0000-7000-8000-000000000002', '9'));
});
