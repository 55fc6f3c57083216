import fc from 'fast-check';
import { evaluateCondition } from '../../src/model/conditions/evaluate';
import { charge, conditionMeter, signalBudget, TOO_COSTLY } from '../../src/model/conditions/budget';
import { byCondition } from '../../src/model/signals/conditions';
import type { Condition, ConditionSubject } from '../../src/model/conditions/syntax';
import type { SignalEnvelope } from '../../src/dispatch/types';
import type { TriggerDefinition } from '../../src/model/triggers/codecs';
import { MATCH_STEPS_PER_CONDITION, MATCH_STEPS_PER_SIGNAL } from '../../src/kernel/limits';

/**
 * The work of matching, measured from outside the evaluator: every signal object is seen through
 * a Proxy that counts each key listed and each property read. Whatever the signal holds (up to
 * the request size limit, 1 MiB), that work stays within the budget of steps (plus listing each
 * of the signal's objects once), never in proportion to the signal times the condition.
 */

const REQUEST_LIMIT = 1024 * 1024;

/** Wraps a JSON value so every read of it is counted; one proxy per object, so identity holds. */
const counted = <T>(root: T) => {
  let touches = 0;
  const proxies = new WeakMap<object, object>();
  const wrap = (v: unknown): unknown => {
    if (typeof v !== 'object' || v === null) return v;
    let p = proxies.get(v);
    if (!p) {
      p = new Proxy(v, {
        get: (t, k, r) => {
          touches++;
          return wrap(Reflect.get(t, k, r));
        },
        getOwnPropertyDescriptor: (t, k) => {
          touches++;
          return Reflect.getOwnPropertyDescriptor(t, k);
        },
        has: (t, k) => {
          touches++;
          return Reflect.has(t, k);
        },
        ownKeys: (t) => {
          const keys = Reflect.ownKeys(t);
          touches += keys.length;
          return keys;
        },
      });
      proxies.set(v, p);
    }
    return p;
  };
  return { value: wrap(root) as T, touches: () => touches };
};

/** JSON values in v (each object's keys listed once costs this much). */
const nodes = (v: unknown): number =>
  typeof v !== 'object' || v === null ? 1 : 1 + (Array.isArray(v) ? v : Object.values(v)).reduce((n: number, c) => n + nodes(c), 0);

/** A signal's `o`: wide objects, long arrays, deep nests, and a previous equal to it (what $changed compares). */
const shaped = fc
  .record({
    width: fc.integer({ min: 0, max: 20_000 }),
    depth: fc.integer({ min: 0, max: 28 }),
    items: fc.integer({ min: 0, max: 20_000 }),
  })
  .map(({ width, depth, items }) => {
    const wide: Record<string, number> = {};
    for (let i = 0; i < width; i++) wide[`k${i}`] = i;
    let deep: unknown = {};
    for (let i = 0; i < depth; i++) deep = { d: deep, e: [i] };
    const o = { wide, deep, list: Array.from({ length: items }, (_, i) => ({ i })) };
    return JSON.parse(JSON.stringify(o)) as Record<string, unknown>;
  })
  .filter((o) => JSON.stringify(o).length * 2 <= REQUEST_LIMIT);

const PATHS = ['instance.o', 'instance.o.wide', 'instance.o.deep', 'instance.o.list', 'instance.o.list.0', 'previous.o.wide'];
const empties = (n: number, v: unknown) => Array.from({ length: n }, () => v);

/** Conditions within the write-time limits whose operands are objects and lists: what costs most against a big signal. */
const hostile = fc.oneof(
  fc
    .record({ path: fc.constantFrom(...PATHS), op: fc.constantFrom('$in', '$nin'), n: fc.integer({ min: 1, max: 45 }) })
    .map(({ path, op, n }) => ({ $and: empties(n, { [path]: { [op]: empties(100, {}) } }) })),
  fc
    .record({ path: fc.constantFrom(...PATHS.filter((p) => p.startsWith('instance.'))), n: fc.integer({ min: 1, max: 64 }) })
    .map(({ path, n }) => ({ $or: empties(n, { [path]: { $changed: true } }) })),
  fc
    .record({ path: fc.constantFrom(...PATHS), n: fc.integer({ min: 1, max: 60 }) })
    .map(({ path, n }) => ({ $nor: empties(n, { [path]: { $eq: { k0: 0, k1: 1 } } }) })),
);

test('matching work is bounded by the budget, whatever the signal holds', () => {
  fc.assert(
    fc.property(shaped, fc.array(hostile, { minLength: 1, maxLength: 8 }), (o, conditions) => {
      const signal = counted({ instance: { o }, previous: { o: JSON.parse(JSON.stringify(o)) as unknown } });
      const subject: ConditionSubject = { ...signal.value, signal: {} };
      const budget = signalBudget();
      let steps = 0;
      for (const condition of conditions) {
        const meter = conditionMeter(budget);
        const result = evaluateCondition(condition as Condition, subject, meter);
        charge(budget, meter);
        steps += meter.steps;
        if (!result.held && result.detail === TOO_COSTLY) expect(result.clause).toMatch(/^condition\.\$(and|or|nor)/);
      }
      // A step reads at most a few properties; listing each object once is the one cost the signal sets.
      const signalNodes = 2 * nodes(o);
      expect(steps).toBeLessThanOrEqual(MATCH_STEPS_PER_SIGNAL + signalNodes);
      expect(signal.touches()).toBeLessThanOrEqual(4 * (MATCH_STEPS_PER_SIGNAL + conditions.length) + 2 * signalNodes);
    }),
    { numRuns: 40 },
  );
});

test("the attack's case (45 × $nin of 100 empty objects against 12,000 keys) lists the keys once and holds", () => {
  const wide = Object.fromEntries(Array.from({ length: 12_000 }, (_, i) => [`k${i}`, i]));
  const signal = counted({ instance: { o: wide } });
  const condition = { $and: empties(45, { 'instance.o': { $nin: empties(100, {}) } }) };
  const meter = conditionMeter(signalBudget());
  expect(evaluateCondition(condition as Condition, { ...signal.value, signal: {} }, meter)).toEqual({ held: true });
  expect(meter.steps).toBeLessThan(12_000 + 45 * 100 * 3);
  expect(signal.touches()).toBeLessThan(4 * 12_000 + 45 * 100 * 4);
});

const trigger = (id: string, condition: unknown) => ({ id, version: 1, definition: { condition } as unknown as TriggerDefinition });
const envelope = (instance: Record<string, unknown>, previous: Record<string, unknown>): SignalEnvelope => ({
  id: 's',
  signal: 'post_save',
  app_label: 'shop',
  model_name: 'order',
  instance,
  previous,
  occurred_at: '2026-12-07T00:00:00Z',
});

test('one costly condition is stopped at its own budget; the triggers after it are still evaluated', () => {
  const wide = Object.fromEntries(Array.from({ length: 12_000 }, (_, i) => [`k${i}`, i]));
  const costly = { $or: empties(64, { 'instance.o': { $changed: true } }) };
  const { held, failed } = byCondition(
    [trigger('costly', costly), trigger('plain', { 'instance.status': 'paid' })],
    envelope({ o: wide, status: 'paid' }, { o: { ...wide }, status: 'pending' }),
  );
  expect(held.map((v) => v.id)).toEqual(['plain']);
  expect(failed.map((f) => [f.view.id, f.result.detail])).toEqual([['costly', TOO_COSTLY]]);
  expect(failed[0]!.result.clause).toMatch(/^condition\.\$or\[\d+\]\.instance\.o$/);
  expect(TOO_COSTLY).toContain(MATCH_STEPS_PER_CONDITION.toLocaleString('en'));
});

test("a signal's budget spent, its remaining conditions are false as too costly (never unmetered)", () => {
  const wide = Object.fromEntries(Array.from({ length: 12_000 }, (_, i) => [`k${i}`, i]));
  const costly = { $or: empties(64, { 'instance.o': { $changed: true } }) };
  const views = Array.from({ length: 7 }, (_, i) => trigger(`t${i}`, costly));
  const { failed } = byCondition(views, envelope({ o: wide }, { o: { ...wide } }));
  expect(failed.map((f) => f.result.detail)).toEqual(views.map(() => TOO_COSTLY));
});
