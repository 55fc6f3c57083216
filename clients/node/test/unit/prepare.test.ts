import { InvalidSignal, prepareSignal } from '../../src/signals/prepare.ts';
import { outboxRow } from '../../src/outbox/table.ts';
import { uuidv7 } from '../../src/ids/uuidv7.ts';

const NOW = new Date('2025-03-01T10:00:00.123Z');
const order = { signal: 'post_save' as const, app_label: 'shop', model_name: 'order', instance: { id: 42, status: 'paid' } };

test("the signal has the Django app's shape: id, occurred_at, the instance with its pk, previous only when there is one", () => {
  const { signal, json } = prepareSignal({ ...order, previous: { id: 42, status: 'pending' } }, 'row-id', NOW);
  // clients/python's sender.py signal_of: id, signal, app_label, model_name, instance (with pk), occurred_at, previous.
  expect(signal).toEqual({
    id: 'row-id',
    signal: 'post_save',
    app_label: 'shop',
    model_name: 'order',
    instance: { pk: 42, id: 42, status: 'paid' },
    previous: { pk: 42, id: 42, status: 'pending' },
    occurred_at: '2025-03-01T10:00:00.123Z',
  });
  expect(JSON.parse(json)).toEqual(signal);
  expect(prepareSignal({ ...order, previous: null }, 'r', NOW).signal).not.toHaveProperty('previous');
  expect(prepareSignal({ ...order, instance: { pk: 'a', id: 1 } }, 'r', NOW).signal.instance).toEqual({ pk: 'a', id: 1 });
});

test('values JSON cannot carry are refused with their path; Dates and toJSON become their JSON', () => {
  const at = new Date('2024-01-02T03:04:05Z');
  expect(prepareSignal({ ...order, instance: { id: 1, at, price: { toJSON: () => '9.50' } } }, 'r', NOW).signal.instance).toEqual({
    pk: 1,
    id: 1,
    at: '2024-01-02T03:04:05.000Z',
    price: '9.50',
  });
  const refusal = (instance: Record<string, unknown>) => {
    try {
      prepareSignal({ ...order, instance }, 'r', NOW);
    } catch (e) {
      return e instanceof InvalidSignal ? e.message : `not InvalidSignal: ${String(e)}`;
    }
    return 'accepted';
  };
  expect(refusal({ n: 10n })).toBe('invalid signal: instance.n: a bigint is not JSON');
  expect(refusal({ a: [1, NaN] })).toBe('invalid signal: instance.a[1]: NaN is not a JSON number');
  expect(refusal(JSON.parse('{"x":{"__proto__":1}}'))).toMatch(/^invalid signal: instance.x.__proto__: is a key the service refuses/);
  // What PostgreSQL's jsonb refuses, named before the INSERT would fail naming nothing.
  expect(refusal({ note: 'a\u0000b' })).toBe('invalid signal: instance.note: holds \\u0000, which PostgreSQL cannot store in jsonb');
  expect(refusal({ tags: ['ok', 'x\ud800'] })).toBe(
    'invalid signal: instance.tags[1]: holds a lone surrogate (half of a UTF-16 pair: not Unicode text)',
  );
  expect(refusal({ ['\udc00k']: 1 })).toMatch(/^invalid signal: instance\."\\udc00k": is a key that holds a lone surrogate/);
  expect(refusal({ emoji: 'ok \ud83d\ude00' })).toBe('accepted');
  let deep: Record<string, unknown> = {};
  for (let i = 0; i < 40; i++) deep = { a: deep };
  expect(refusal(deep)).toMatch(/nests too deep/);
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  expect(refusal(cycle)).toBe('invalid signal: instance.self: refers to itself (a cycle)');
  expect(refusal({ big: 'x'.repeat(300_000) })).toMatch(/^invalid signal: instance: makes the signal \d+ bytes as JSON; at most 262144$/);
});

test.each([
  [{ signal: 'post_update' }, 'signal'],
  [{ app_label: ' ' }, 'app_label'],
  [{ model_name: 'x'.repeat(101) }, 'model_name'],
  [{ id: '-starts-badly' }, 'id'],
  [{ instance: [] }, 'instance'],
  [{ occurred_at: '2024-01-02' }, 'occurred_at'],
  [{ instance_key: '' }, 'instance_key'],
  [{ instance_key: 'a\u0000' }, 'instance_key'],
  [{ model_name: 'order\ud800' }, 'model_name'],
])('%j is refused naming %s', (over, field) => {
  expect(() => prepareSignal({ ...order, ...(over as object) }, 'r', NOW)).toThrow(expect.objectContaining({ field }));
});

test("a row's instance key names its model too; ids are UUIDv7, the signal's own id when given", () => {
  const row = outboxRow(order, NOW);
  const [id, json, key] = row.values;
  expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(JSON.parse(json).id).toBe(id);
  expect(key).toBe('shop.order:42');
  expect(row.emitted).toMatchObject({ id, rowId: id });
  expect(outboxRow({ ...order, instance_key: 'k' }, NOW).values[2]).toBe('shop.order:k');
  expect(outboxRow({ ...order, instance: {} }, NOW).values[2]).toBeNull();
  expect(outboxRow({ ...order, id: 'order-42-paid' }, NOW).emitted.id).toBe('order-42-paid');
  // Time-ordered across milliseconds, unique within one.
  expect(uuidv7(1) < uuidv7(2)).toBe(true);
  expect(new Set(Array.from({ length: 1000 }, () => uuidv7(5))).size).toBe(1000);
});
