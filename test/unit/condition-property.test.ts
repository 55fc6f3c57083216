import fc from 'fast-check';
import { isLeft } from 'fp-ts/Either';
import { toFieldErrors } from '../../src/kernel/field-errors';
import { CONDITION_MAX_COMPARISONS } from '../../src/kernel/limits';
import { ConditionCodec } from '../../src/model/conditions/check';
import { evaluateCondition } from '../../src/model/conditions/evaluate';
import { Condition, ConditionResult, ConditionSubject, SIGNAL_FIELDS } from '../../src/model/conditions/syntax';
import { lookup, Meter } from '../../src/model/conditions/values';

/**
 * Properties of evaluateCondition over random signals and random conditions: both conditions
 * from the grammar (which the codec must accept) and arbitrary JSON objects the codec never saw
 * (a stored condition another build wrote). Everything goes through JSON.parse, as the service
 * reads it, so a "__proto__" key is an own property.
 */

const RUNS = 2000;
const SECRET = 'ZQX-SECRET';

/** A JSON round trip: what the service would read. */
const asJson = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const sizeOf = (v: unknown) => (v === undefined ? 0 : JSON.stringify(v).length);

/** Field names and indexes, few enough that generated paths often hit generated fields. */
const key = fc.constantFrom('a', 'b', 'status', 'lines', 'secret', '0', '1', '__proto__', 'constructor', 'length');

/** RFC 3339 timestamps of one instant in any offset, with 0 to 9 fraction digits; `nanos` orders them. */
const timestamp = fc
  .record({
    seconds: fc.integer({ min: 0, max: 4102444799 }),
    fraction: fc.string({ unit: fc.constantFrom(...'0123456789'), maxLength: 9 }),
    offset: fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }),
    zulu: fc.constantFrom('Z', 'z', '+00:00', '-00:00'),
    t: fc.constantFrom('T', 't'),
  })
  .map(({ seconds, fraction, offset, zulu, t }) => {
    const local = new Date((seconds + offset * 60) * 1000).toISOString().slice(0, 19).replace('T', t);
    const abs = Math.abs(offset);
    const zone =
      offset === 0
        ? zulu
        : `${offset < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
    const text = `${local}${fraction === '' ? '' : `.${fraction}`}${zone}`;
    return { text, nanos: BigInt(seconds) * 1_000_000_000n + BigInt(fraction.padEnd(9, '0')) };
  });

const scalar = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -5, max: 5 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom('paid', 'pending', '', 'a.b', '2024-05-01', 'constructor'),
  timestamp.map((ts) => ts.text),
);

const { json } = fc.letrec((tie) => ({
  json: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('array'), tie('object')),
  array: fc.array(tie('json'), { maxLength: 3 }),
  object: fc.dictionary(key, tie('json'), { maxKeys: 4 }),
}));

const record = fc.dictionary(key, json, { maxKeys: 5 });

const subject: fc.Arbitrary<ConditionSubject> = fc
  .record({
    instance: record,
    previous: fc.option(record, { nil: undefined }),
    signal: fc.record(Object.fromEntries(SIGNAL_FIELDS.map((f) => [f, scalar]))),
  })
  .map((s) => {
    const instance = { ...s.instance, secret: SECRET };
    const out: ConditionSubject = { instance, signal: s.signal };
    if (s.previous !== undefined) out.previous = { ...s.previous, secret: `${SECRET}-before` };
    return asJson(out);
  });

/** Mostly one or two segments, so paths often hit; sometimes up to five. */
const segments = fc
  .oneof({ weight: 3, arbitrary: fc.array(key, { minLength: 1, maxLength: 2 }) }, fc.array(key, { minLength: 1, maxLength: 5 }))
  .map((parts) => parts.join('.'));
const instancePath = segments.map((s) => `instance.${s}`);
const valuePath = fc.oneof(
  instancePath,
  segments.map((s) => `previous.${s}`),
  fc.constantFrom(...SIGNAL_FIELDS.map((f) => `signal.${f}`)),
);

/** Values a condition compares with: never the subject's secret, so no detail may show it. */
const nonObject = fc.oneof(scalar, fc.array(json, { maxLength: 3 }));
const orderable = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer({ min: -5, max: 5 }),
  timestamp.map((ts) => ts.text),
);

const OPERANDS: Record<string, fc.Arbitrary<unknown>> = {
  $eq: json,
  $ne: json,
  $in: fc.array(json, { maxLength: 4 }),
  $nin: fc.array(json, { maxLength: 4 }),
  $gt: orderable,
  $gte: orderable,
  $lt: orderable,
  $lte: orderable,
  $exists: fc.boolean(),
  $changed: fc.oneof(
    fc.boolean(),
    fc.record({ from: json, to: json }, { requiredKeys: [] }).filter((e) => Object.keys(e).length > 0),
  ),
};
/** One to three operators; `$changed` only where it may go (instance. paths). */
const operators = (withChanged: boolean) =>
  fc
    .subarray(
      Object.keys(OPERANDS).filter((op) => withChanged || op !== '$changed'),
      { minLength: 1, maxLength: 3 },
    )
    .chain((ops) => fc.tuple(...ops.map((op) => OPERANDS[op]!.map((operand) => [op, operand] as const))))
    .map((entries) => Object.fromEntries(entries));

/** Operators, sometimes with a `$not` of operators beside them. */
const negatable = (withChanged: boolean) =>
  fc
    .tuple(operators(withChanged), fc.option(operators(withChanged), { nil: undefined }))
    .map(([ops, not]) => (not === undefined ? ops : { ...ops, $not: not }));

const fieldEntry = fc.oneof(fc.tuple(valuePath, fc.oneof(nonObject, negatable(false))), fc.tuple(instancePath, negatable(true)));

/** How many comparisons a path's operators hold, those under `$not` included. */
const operatorCount = (ops: Record<string, unknown>): number =>
  Object.entries(ops).reduce((n, [op, v]) => n + (op === '$not' ? operatorCount(v as Record<string, unknown>) : 1), 0);

/** How many comparisons a condition of the grammar holds, as the codec counts them. */
const comparisons = (condition: Record<string, unknown>): number =>
  Object.entries(condition).reduce(
    (n, [k, v]) =>
      n +
      (k.startsWith('$')
        ? (v as Record<string, unknown>[]).reduce((m, c) => m + comparisons(c), 0)
        : typeof v === 'object' && v !== null && !Array.isArray(v)
          ? operatorCount(v as Record<string, unknown>)
          : 1),
    0,
  );

/** Conditions of the grammar, at most 4 levels deep and within the codec's limit of comparisons. */
const { condition: validCondition } = fc.letrec<{ condition: Record<string, unknown> }>((tie) => ({
  condition: fc
    .array(
      fc.oneof(
        { depthSize: 'small', maxDepth: 3 },
        fieldEntry,
        fc.tuple(fc.constantFrom('$and', '$or', '$nor'), fc.array(tie('condition'), { minLength: 1, maxLength: 3 })),
      ),
      { minLength: 1, maxLength: 3 },
    )
    .map((entries) => Object.fromEntries(entries))
    .filter((c) => comparisons(c) <= CONDITION_MAX_COMPARISONS),
}));

/** JSON objects that may be anything: unknown operators, wrong operands, non-objects where conditions go. */
const anyKey = fc.oneof(
  valuePath,
  key,
  fc.constantFrom(
    '$and',
    '$or',
    '$nor',
    '$not',
    '$eq',
    '$in',
    '$gt',
    '$changed',
    '$exists',
    '$where',
    'instance',
    'previous',
    'bogus.a',
    '',
  ),
);
const { condition: anyCondition } = fc.letrec<{ condition: Record<string, unknown>; value: unknown }>((tie) => ({
  condition: fc.dictionary(anyKey, tie('value'), { maxKeys: 4 }),
  value: fc.oneof({ depthSize: 'small', maxDepth: 4 }, json, tie('condition'), fc.array(tie('value'), { maxLength: 3 })),
}));

/** Why a result is not `{held: true}` or `{held: false, clause, detail}` as the contract says, or undefined. */
const shapeProblem = (result: ConditionResult): string | undefined => {
  if (result.held === true) return Object.keys(result).length === 1 ? undefined : 'held with more keys';
  if (result.held !== false) return 'held is not a boolean';
  if (Object.keys(result).sort().join() !== 'clause,detail,held') return `keys ${Object.keys(result).join()}`;
  if (typeof result.clause !== 'string' || !result.clause.startsWith('condition')) return `clause ${String(result.clause)}`;
  if (typeof result.detail !== 'string') return 'detail is not a string';
  if (result.detail.includes(SECRET)) return `detail quotes the instance: ${result.detail}`;
  return undefined;
};

/** Every JSON value in v, itself included. */
const nodes = (v: unknown): number =>
  typeof v !== 'object' || v === null ? 1 : 1 + (Array.isArray(v) ? v : Object.values(v)).reduce((n: number, c) => n + nodes(c), 0);
/** Every dotted segment of every key in v, at any depth. */
const segmentsIn = (v: unknown): number =>
  typeof v !== 'object' || v === null
    ? 0
    : Array.isArray(v)
      ? v.reduce((n: number, c) => n + segmentsIn(c), 0)
      : Object.entries(v).reduce((n, [k, c]) => n + k.split('.').length + segmentsIn(c), 0);

/**
 * What a condition compares beyond its own operands: each `$changed` compares the value at its
 * path in `previous` with the one in `instance` (counted here by the `previous` side; equality
 * stops at the smaller). Any other comparison takes at most one step per value of the condition's
 * own operand. Walks every branch, as if nothing short-circuited.
 */
const compared = (condition: unknown, s: ConditionSubject, size: (v: unknown) => number): number => {
  if (typeof condition !== 'object' || condition === null || Array.isArray(condition)) return 0;
  let total = 0;
  for (const [k, v] of Object.entries(condition)) {
    if (k.startsWith('$')) {
      if (Array.isArray(v)) for (const item of v) total += compared(item, s, size);
    } else if (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.prototype.hasOwnProperty.call(v, '$changed')) {
      const before = s.previous === undefined ? { found: false as const } : lookup(s.previous, k.split('.').slice(1));
      if (before.found) total += size(before.value);
    }
  }
  return total;
};

/**
 * The two linear bounds the meter must stay under:
 * - loose, in characters: steps ≤ 4 × (JSON characters of the condition + JSON characters of the
 *   values it compares) + 8;
 * - tight, in values: steps ≤ 2 × (JSON values in the condition + dotted segments of its keys +
 *   JSON values it compares) + 8, where a 1 × bound would not hold (checked below).
 */
const looseBound = (c: unknown, s: ConditionSubject) => 4 * (sizeOf(c) + compared(c, s, sizeOf)) + 8;
const tightMeasure = (c: unknown, s: ConditionSubject) => nodes(c) + segmentsIn(c) + compared(c, s, nodes);
const tightBound = (c: unknown, s: ConditionSubject) => 2 * tightMeasure(c, s) + 8;

/** The largest (steps - 8) / tight measure the properties saw. */
let steepest = 0;

const evaluates = (condition: unknown, s: ConditionSubject) => {
  const meter: Meter = { steps: 0 };
  const result = evaluateCondition(condition as Condition, s, meter);
  const problem = shapeProblem(result);
  if (problem) throw new Error(problem);
  if (meter.steps > looseBound(condition, s)) throw new Error(`${meter.steps} steps, over the loose bound ${looseBound(condition, s)}`);
  if (meter.steps > tightBound(condition, s)) throw new Error(`${meter.steps} steps, over the tight bound ${tightBound(condition, s)}`);
  steepest = Math.max(steepest, (meter.steps - 8) / tightMeasure(condition, s));
};

test('on conditions of the grammar (which the codec accepts): never throws, answers held or a clause and a detail, in linear steps', () => {
  fc.assert(
    fc.property(validCondition.map(asJson), subject, (condition, s) => {
      const r = ConditionCodec.decode(condition);
      if (isLeft(r)) throw new Error(`the codec refused it: ${JSON.stringify(toFieldErrors(r.left))}`);
      evaluates(condition, s);
    }),
    { numRuns: RUNS },
  );
});

test('on arbitrary JSON objects the codec never checked: the same', () => {
  fc.assert(fc.property(anyCondition.map(asJson), subject, evaluates), { numRuns: RUNS });
});

test('on conditions of the grammar repeated under $or, $and and $nor: the same', () => {
  fc.assert(
    fc.property(validCondition.map(asJson), subject, (condition, s) => {
      evaluates(condition, s);
      evaluates({ $or: [condition, condition, { $nor: [condition] }], $and: [condition] }, s);
    }),
    { numRuns: 200 },
  );
});

test('the tight bound needs its factor: $changed on a long path takes more than one step per unit', () => {
  const path = `instance.${Array(16).fill('a').join('.')}`;
  const deep = path
    .split('.')
    .slice(1)
    .reduceRight<unknown>((v, k) => ({ [k]: v }), 1) as Record<string, unknown>;
  const s: ConditionSubject = { instance: deep, previous: deep, signal: {} };
  const condition: Condition = { [path]: { $changed: false } };
  const meter: Meter = { steps: 0 };
  expect(evaluateCondition(condition, s, meter)).toEqual({ held: true });
  expect(meter.steps).toBeGreaterThan(tightMeasure(condition, s) + 8);
  expect(meter.steps).toBeLessThanOrEqual(tightBound(condition, s));
  expect(steepest).toBeLessThanOrEqual(2);
});

test('$changed on large equal values takes steps in proportion to them', () => {
  const big = { a: Array.from({ length: 500 }, (_, i) => ({ i, tags: ['x', 'y'] })) };
  const s: ConditionSubject = { instance: asJson(big), previous: asJson(big), signal: {} };
  const condition: Condition = { 'instance.a': { $changed: false } };
  const meter: Meter = { steps: 0 };
  expect(evaluateCondition(condition, s, meter)).toEqual({ held: true });
  expect(meter.steps).toBeGreaterThan(2000);
  expect(meter.steps).toBeLessThanOrEqual(tightBound(condition, s));
  expect(meter.steps).toBeLessThanOrEqual(looseBound(condition, s));
});

test('timestamps order as instants, whatever the offset and fraction digits', () => {
  fc.assert(
    fc.property(timestamp, timestamp, fc.boolean(), (a, b, sameInstant) => {
      const other = sameInstant ? { ...b, nanos: a.nanos } : b;
      const operand = sameInstant ? retime(a, b) : b.text;
      const s: ConditionSubject = { instance: { at: a.text }, signal: {} };
      const held = (op: string) => evaluateCondition({ 'instance.at': { [op]: operand } }, s).held;
      expect(held('$gt')).toBe(a.nanos > other.nanos);
      expect(held('$gte')).toBe(a.nanos >= other.nanos);
      expect(held('$lt')).toBe(a.nanos < other.nanos);
      expect(held('$lte')).toBe(a.nanos <= other.nanos);
    }),
    { numRuns: RUNS / 2 },
  );
});

/** `a`'s instant written in `b`'s offset, with trailing zeros added to its fraction. */
const retime = (a: { text: string; nanos: bigint }, b: { text: string }) => {
  const zone = /([Zz]|[+-]\d\d:\d\d)$/.exec(b.text)![1]!;
  const minutes = /^[Zz]$/.test(zone) ? 0 : (zone[0] === '-' ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  const seconds = Number(a.nanos / 1_000_000_000n);
  const fraction = String(a.nanos % 1_000_000_000n).padStart(9, '0');
  const local = new Date((seconds + minutes * 60) * 1000).toISOString().slice(0, 19);
  return `${local}.${fraction}${zone}`;
};
