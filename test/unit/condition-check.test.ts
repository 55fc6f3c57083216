import { isLeft, isRight } from 'fp-ts/Either';
import { configFrom, policyOf } from '../../src/config';
import { toFieldErrors } from '../../src/kernel/field-errors';
import {
  CONDITION_MAX_BYTES,
  CONDITION_MAX_COMPARISONS,
  CONDITION_MAX_DEPTH,
  CONDITION_MAX_LIST,
  CONDITION_MAX_PATH_SEGMENTS,
} from '../../src/kernel/limits';
import { ConditionCodec } from '../../src/model/conditions/check';
import { buildTriggerInputCodec, buildTriggerPatchCodec } from '../../src/model/triggers/codecs';
import { triggerBody } from '../support/trigger-body';

const policy = policyOf(configFrom({}));
const codec = buildTriggerInputCodec(policy);

/** The field errors of a trigger body holding the condition, as the API reports them. */
const errorsOf = (condition: unknown) => {
  const r = codec.decode(triggerBody({ condition }));
  return isLeft(r) ? toFieldErrors(r.left) : [];
};

const accepted = (condition: unknown) => {
  const r = codec.decode(triggerBody({ condition }));
  if (isLeft(r)) throw new Error(`refused: ${JSON.stringify(toFieldErrors(r.left))}`);
  return r.right.definition.condition;
};

/** `levels` nested condition objects: the outermost is level 1. */
const nested = (levels: number, op = '$and'): Record<string, unknown> =>
  levels <= 1 ? { 'instance.x': 1 } : { [op]: [nested(levels - 1, op)] };

describe('accepted', () => {
  test.each<[string, unknown]>([
    ['the docs example', { 'instance.status': 'paid', 'instance.total': { $gte: 100 } }],
    ['a transition', { 'instance.status': { $changed: { from: 'pending', to: 'paid' } } }],
    [
      '$changed with one end, or a boolean',
      { 'instance.a': { $changed: { from: null } }, 'instance.b': { $changed: { to: 1 } }, 'instance.c': { $changed: false } },
    ],
    [
      'every field operator',
      { 'instance.x': { $eq: 1, $ne: 2, $in: [1], $nin: [], $gt: 0, $gte: 0, $lt: 9, $lte: 9, $exists: true, $changed: true } },
    ],
    ['$eq with an object or {}', { 'instance.customer': { $eq: { name: 'Ada' } }, 'instance.meta': { $eq: {} } }],
    ['shorthand with null, a boolean or a list', { 'instance.note': null, 'instance.active': false, 'instance.tags': ['a', { b: 1 }] }],
    [
      'timestamps with offsets and fractions',
      { 'instance.at': { $gt: '2024-05-01T12:00:00.123456789+02:00', $lt: '2024-05-02t00:00:00z' } },
    ],
    [
      'every signal field',
      Object.fromEntries(['id', 'signal', 'app_label', 'model_name', 'occurred_at', 'instance_key'].map((f) => [`signal.${f}`, 'x'])),
    ],
    ['previous. paths, array indexes', { 'previous.status': 'pending', 'instance.lines.0.sku': 'A-1' }],
    ['$and, $or and $nor, nested', { $and: [{ $or: [{ 'instance.a': 1 }, { 'instance.b': 2 }] }, { $nor: [{ 'instance.c': 3 }] }] }],
    ['a path of the most segments', { [`instance.${Array(CONDITION_MAX_PATH_SEGMENTS).fill('a').join('.')}`]: 1 }],
    ['$in of the most values', { 'instance.x': { $in: Array.from({ length: CONDITION_MAX_LIST }, (_, i) => i) } }],
  ])('%s', (_name, condition) => {
    expect(accepted(condition)).toEqual(condition);
  });

  test('condition: null on input is no condition', () => {
    const r = codec.decode(triggerBody({ condition: null }));
    expect(isRight(r)).toBe(true);
    if (isRight(r)) expect('condition' in r.right.definition).toBe(false);
  });

  test('no condition is no condition', () => {
    const r = codec.decode(triggerBody({ condition: undefined }));
    expect(isRight(r) && !('condition' in r.right.definition)).toBe(true);
  });

  test('a patch may set condition: null to remove it, and its condition is checked', () => {
    const patch = buildTriggerPatchCodec(policy);
    expect(isRight(patch.decode({ condition: null }))).toBe(true);
    const r = patch.decode({ condition: { 'instance.total': { $gt: 'lots' } } });
    expect(isLeft(r) && toFieldErrors(r.left)).toEqual([
      { path: 'condition.instance.total.$gt', message: 'must be a number or an RFC 3339 timestamp' },
    ]);
  });

  test('ConditionCodec alone accepts a condition as it is', () => {
    const condition = { 'instance.status': 'paid' };
    expect(ConditionCodec.decode(condition)).toEqual({ _tag: 'Right', right: condition });
  });
});

describe('paths', () => {
  test.each([
    ['instanse.x', 'must start with instance., previous. or signal. (did you mean instance?)'],
    ['prevoius.status', 'must start with instance., previous. or signal. (did you mean previous?)'],
    ['sginal.id', 'must start with instance., previous. or signal. (did you mean signal?)'],
    ['order.status', 'must start with instance., previous. or signal.'],
    ['status', 'must start with instance., previous. or signal.'],
    ['', 'must start with instance., previous. or signal.'],
    ['instance', 'must name a field after instance.'],
    ['previous', 'must name a field after previous.'],
    ['instance..x', 'has an empty segment'],
    ['instance.x.', 'has an empty segment'],
    ['instance.', 'has an empty segment'],
    [
      `instance.${Array(CONDITION_MAX_PATH_SEGMENTS + 1)
        .fill('a')
        .join('.')}`,
      `has ${CONDITION_MAX_PATH_SEGMENTS + 1} segments after instance.; at most ${CONDITION_MAX_PATH_SEGMENTS}`,
    ],
    ['signal.foo', 'must be one of signal.id, signal.signal, signal.app_label, signal.model_name, signal.occurred_at, signal.instance_key'],
    [
      'signal.id.x',
      'must be one of signal.id, signal.signal, signal.app_label, signal.model_name, signal.occurred_at, signal.instance_key',
    ],
    [
      'signal.instance',
      'must be one of signal.id, signal.signal, signal.app_label, signal.model_name, signal.occurred_at, signal.instance_key',
    ],
  ])('%j: %s', (path, message) => {
    expect(errorsOf({ [path]: 1 })).toEqual([{ path: `condition.${path}`, message }]);
  });

  test.each(['constructor', 'toString', 'hasOwnProperty', '__proto__'])('a root named %s suggests nothing from the prototype', (root) => {
    const condition = JSON.parse(`{"${root}.x": 1}`) as unknown;
    expect(errorsOf(condition)).toEqual([{ path: `condition.${root}.x`, message: 'must start with instance., previous. or signal.' }]);
  });
});

describe('operators', () => {
  test.each([
    ['$neq', 'is not an operator (did you mean $ne?); to compare with an object, use $eq'],
    ['$exist', 'is not an operator (did you mean $exists?); to compare with an object, use $eq'],
    ['$gtt', 'is not an operator (did you mean $gt?); to compare with an object, use $eq'],
    ['$notin', 'is not an operator (did you mean $nin?); to compare with an object, use $eq'],
    ['$chnaged', 'is not an operator (did you mean $changed?); to compare with an object, use $eq'],
    ['$regex', 'is not an operator; to compare with an object, use $eq'],
    ['constructor', 'is not an operator; to compare with an object, use $eq'],
  ])('unknown %s', (op, message) => {
    expect(errorsOf({ 'instance.x': { $eq: 1, [op]: 1 } })).toEqual([{ path: `condition.instance.x.${op}`, message }]);
  });

  test('an object of fields under a path is refused: compare objects with $eq', () => {
    expect(errorsOf({ 'instance.customer': { name: 'Ada' } })).toEqual([
      { path: 'condition.instance.customer.name', message: 'is not an operator; to compare with an object, use $eq' },
    ]);
    expect(errorsOf({ 'instance.customer': {} })).toEqual([
      { path: 'condition.instance.customer', message: 'must hold at least one operator; to compare with {}, use $eq' },
    ]);
  });

  test.each(['$eq', '$gt', '$in', '$exists', '$changed'])('the field operator %s at the top level is refused', (op) => {
    expect(errorsOf({ [op]: 1 })).toEqual([
      { path: `condition.${op}`, message: 'is not an operator here; use $and, $or or $nor (a field operator: put it under a path)' },
    ]);
  });

  test.each([
    ['$not', { 'instance.x': 1 }, ' (it goes under a path: {"instance.x": {"$not": {…}}}; to negate conditions, $nor: [ … ])'],
    ['$ord', [{ 'instance.x': 1 }], ' (did you mean $or?)'],
    ['$where', 'this.x', ''],
  ])('the logical operator %s is refused', (op, value, suggestion) => {
    expect(errorsOf({ [op]: value })).toEqual([
      { path: `condition.${op}`, message: `is not an operator here; use $and, $or or $nor${suggestion}` },
    ]);
  });

  test.each(['$and', '$or', '$nor'])('%s must be a non-empty list of conditions', (op) => {
    for (const value of [{ 'instance.x': 1 }, [], 'x', null]) {
      expect(errorsOf({ [op]: value })).toEqual([{ path: `condition.${op}`, message: 'must be a non-empty list of conditions' }]);
    }
    expect(errorsOf({ [op]: [{ 'instance.x': 1 }, 5, []] })).toEqual([
      { path: `condition.${op}[1]`, message: 'must be an object of paths and operators' },
      { path: `condition.${op}[2]`, message: 'must be an object of paths and operators' },
    ]);
    expect(errorsOf({ [op]: [{}] })).toEqual([{ path: `condition.${op}[0]`, message: 'must hold at least one path or operator' }]);
  });

  test.each(['$in', '$nin'])('%s must be a list of at most the limit', (op) => {
    expect(errorsOf({ 'instance.x': { [op]: 'paid' } })).toEqual([
      { path: `condition.instance.x.${op}`, message: 'must be a list of values' },
    ]);
    expect(errorsOf({ 'instance.x': { [op]: { a: 1 } } })).toEqual([
      { path: `condition.instance.x.${op}`, message: 'must be a list of values' },
    ]);
    expect(errorsOf({ 'instance.x': { [op]: Array(CONDITION_MAX_LIST + 1).fill('v') } })).toEqual([
      { path: `condition.instance.x.${op}`, message: `has ${CONDITION_MAX_LIST + 1} values; at most ${CONDITION_MAX_LIST}` },
    ]);
  });

  test.each(['$gt', '$gte', '$lt', '$lte'])('%s takes only a number or an RFC 3339 timestamp', (op) => {
    for (const operand of [
      'abc',
      '100',
      '2024-05-01',
      '2024-05-01 12:00:00Z',
      '2023-02-29T00:00:00Z',
      '2024-05-01T24:00:00Z',
      '2016-12-31T23:59:61Z',
      '2016-12-31T22:05:60Z',
      '2016-12-31T23:59:60+01:00',
      true,
      null,
      [1],
      {},
    ]) {
      expect(errorsOf({ 'instance.x': { [op]: operand } })).toEqual([
        { path: `condition.instance.x.${op}`, message: 'must be a number or an RFC 3339 timestamp' },
      ]);
    }
    for (const operand of [
      0,
      -1.5,
      1e300,
      '2024-02-29T00:00:00Z',
      '2024-05-01T12:00:00.5-04:30',
      '2016-12-31T23:59:60Z',
      '2017-01-01T00:59:60.25+01:00',
    ]) {
      expect(errorsOf({ 'instance.x': { [op]: operand } })).toEqual([]);
    }
  });

  test('$exists takes only true or false', () => {
    for (const operand of [1, 0, 'true', null, {}]) {
      expect(errorsOf({ 'instance.x': { $exists: operand } })).toEqual([
        { path: 'condition.instance.x.$exists', message: 'must be true or false' },
      ]);
    }
  });

  test('$changed works on instance. paths only', () => {
    for (const path of ['previous.status', 'signal.occurred_at']) {
      expect(errorsOf({ [path]: { $changed: true } })).toEqual([
        { path: `condition.${path}.$changed`, message: 'compares instance with previous: use it on an instance. path' },
      ]);
    }
  });

  test('$changed takes true, false or from and to', () => {
    for (const operand of [{}, 'yes', 1, null, ['pending', 'paid']]) {
      expect(errorsOf({ 'instance.status': { $changed: operand } })).toEqual([
        { path: 'condition.instance.status.$changed', message: 'must be true, false or {"from": …, "to": …}' },
      ]);
    }
    expect(errorsOf({ 'instance.status': { $changed: { from: 'a', by: 'b' } } })).toEqual([
      { path: 'condition.instance.status.$changed', message: 'takes only from and to, not by' },
    ]);
  });
});

describe('$not', () => {
  test('under a path it takes operators, $changed on instance. paths included', () => {
    expect(errorsOf({ 'instance.status': { $not: { $in: ['void', 'refunded'] } } })).toEqual([]);
    expect(errorsOf({ 'instance.total': { $gt: 0, $not: { $gte: 100, $lt: 200 } } })).toEqual([]);
    expect(errorsOf({ 'instance.status': { $not: { $changed: { from: 'pending', to: 'paid' } } } })).toEqual([]);
    expect(errorsOf({ 'previous.status': { $not: { $exists: true } } })).toEqual([]);
  });

  test("what it holds is checked as a path's operators are, each error at its own path", () => {
    expect(
      errorsOf({
        'instance.a': { $not: 'paid' },
        'instance.b': { $not: {} },
        'instance.c': { $not: { $not: { $eq: 1 } } },
        'instance.d': { $not: { $neq: 1, $in: 'x' } },
        'previous.e': { $not: { $changed: true } },
      }),
    ).toEqual([
      { path: 'condition.instance.a.$not', message: 'must be an object of operators, e.g. {"$in": [ … ]}' },
      { path: 'condition.instance.b.$not', message: 'must hold at least one operator; to compare with {}, use $eq' },
      { path: 'condition.instance.c.$not.$not', message: 'is inside $not: $not of $not is the operators themselves' },
      { path: 'condition.instance.d.$not.$neq', message: 'is not an operator (did you mean $ne?); to compare with an object, use $eq' },
      { path: 'condition.instance.d.$not.$in', message: 'must be a list of values' },
      { path: 'condition.previous.e.$not.$changed', message: 'compares instance with previous: use it on an instance. path' },
    ]);
  });

  test('the operators under it count as comparisons', () => {
    const under = Object.fromEntries(Array.from({ length: CONDITION_MAX_COMPARISONS - 1 }, (_, i) => [`instance.f${i}`, i]));
    expect(errorsOf({ ...under, 'instance.x': { $not: { $eq: 1 } } })).toEqual([]);
    expect(errorsOf({ ...under, 'instance.x': { $not: { $eq: 1, $ne: 2 } } })).toEqual([
      { path: 'condition', message: `holds ${CONDITION_MAX_COMPARISONS + 1} comparisons; at most ${CONDITION_MAX_COMPARISONS}` },
    ]);
  });
});

describe('the whole condition', () => {
  test.each<[string, unknown]>([
    ['a list', [{ 'instance.x': 1 }]],
    ['a string', 'instance.x == 1'],
    ['a number', 1],
  ])('%s is refused', (_name, condition) => {
    expect(errorsOf(condition)).toEqual([{ path: 'condition', message: 'must be an object of paths and operators' }]);
  });

  test('{} is refused', () => {
    expect(errorsOf({})).toEqual([{ path: 'condition', message: 'must hold at least one path or operator' }]);
  });

  test.each(['$and', '$or', '$nor'])(`${CONDITION_MAX_DEPTH} levels of %s are accepted, one more refused`, (op) => {
    expect(errorsOf(nested(CONDITION_MAX_DEPTH, op))).toEqual([]);
    expect(errorsOf(nested(CONDITION_MAX_DEPTH + 1, op))).toEqual([
      { path: `condition${`.${op}[0]`.repeat(CONDITION_MAX_DEPTH)}`, message: `nests deeper than ${CONDITION_MAX_DEPTH} levels` },
    ]);
  });

  test('operator objects under a path are not a level', () => {
    const deepest = { 'instance.x': { $changed: { from: { a: { b: 1 } } } }, 'instance.y': { $eq: { a: { b: { c: {} } } } } };
    let condition: Record<string, unknown> = deepest;
    for (let i = 1; i < CONDITION_MAX_DEPTH; i++) condition = { $or: [condition] };
    expect(errorsOf(condition)).toEqual([]);
  });

  test(`${CONDITION_MAX_COMPARISONS} comparisons are accepted, one more refused`, () => {
    const pairs = Object.fromEntries(
      Array.from({ length: CONDITION_MAX_COMPARISONS / 2 }, (_, i) => [`instance.f${i}`, { $gte: 0, $lte: 9 }]),
    );
    expect(errorsOf(pairs)).toEqual([]);
    expect(errorsOf({ ...pairs, $and: [{ 'instance.extra': 1 }] })).toEqual([
      { path: 'condition', message: `holds ${CONDITION_MAX_COMPARISONS + 1} comparisons; at most ${CONDITION_MAX_COMPARISONS}` },
    ]);
    const flat = Object.fromEntries(Array.from({ length: CONDITION_MAX_COMPARISONS + 1 }, (_, i) => [`instance.f${i}`, i]));
    expect(errorsOf(flat)).toEqual([
      { path: 'condition', message: `holds ${CONDITION_MAX_COMPARISONS + 1} comparisons; at most ${CONDITION_MAX_COMPARISONS}` },
    ]);
  });

  test('comparisons count across $and, $or and $nor', () => {
    const branch = (n: number, base: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`instance.f${base + i}`, i]));
    const third = CONDITION_MAX_COMPARISONS / 4;
    const atLimit = { $and: [branch(third, 0)], $or: [branch(third, 100)], $nor: [branch(third, 200), branch(third, 300)] };
    expect(errorsOf(atLimit)).toEqual([]);
    expect(errorsOf({ ...atLimit, 'instance.one_more': { $exists: true } })[0]?.message).toBe(
      `holds ${CONDITION_MAX_COMPARISONS + 1} comparisons; at most ${CONDITION_MAX_COMPARISONS}`,
    );
  });

  test(`more than ${CONDITION_MAX_BYTES} bytes of JSON are refused, counting bytes not characters`, () => {
    const ascii = { 'instance.note': 'x'.repeat(CONDITION_MAX_BYTES) };
    const asciiBytes = JSON.stringify(ascii).length;
    expect(errorsOf(ascii)).toEqual([{ path: 'condition', message: `is ${asciiBytes} bytes as JSON; at most ${CONDITION_MAX_BYTES}` }]);
    const wide = { 'instance.note': 'é'.repeat(CONDITION_MAX_BYTES / 2) };
    expect(JSON.stringify(wide).length).toBeLessThan(CONDITION_MAX_BYTES);
    const wideBytes = Buffer.byteLength(JSON.stringify(wide));
    expect(errorsOf(wide)).toEqual([{ path: 'condition', message: `is ${wideBytes} bytes as JSON; at most ${CONDITION_MAX_BYTES}` }]);
    const fits = { 'instance.note': 'x'.repeat(CONDITION_MAX_BYTES - '{"instance.note":""}'.length) };
    expect(Buffer.byteLength(JSON.stringify(fits))).toBe(CONDITION_MAX_BYTES);
    expect(errorsOf(fits)).toEqual([]);
  });

  test('several errors are reported at once, each at its own path', () => {
    expect(
      errorsOf({
        'instanse.status': 'paid',
        'instance.status': { $neq: 'void' },
        $and: [{ 'instance.status': 'paid' }, { 'instance.total': { $gt: 'lots' } }],
        $or: [{ 'signal.when': 1 }, { 'previous.status': { $changed: true, $exists: 'yes' } }],
        $not: {},
      }),
    ).toEqual([
      { path: 'condition.instanse.status', message: 'must start with instance., previous. or signal. (did you mean instance?)' },
      { path: 'condition.instance.status.$neq', message: 'is not an operator (did you mean $ne?); to compare with an object, use $eq' },
      { path: 'condition.$and[1].instance.total.$gt', message: 'must be a number or an RFC 3339 timestamp' },
      {
        path: 'condition.$or[0].signal.when',
        message: 'must be one of signal.id, signal.signal, signal.app_label, signal.model_name, signal.occurred_at, signal.instance_key',
      },
      { path: 'condition.$or[1].previous.status.$changed', message: 'compares instance with previous: use it on an instance. path' },
      { path: 'condition.$or[1].previous.status.$exists', message: 'must be true or false' },
      {
        path: 'condition.$not',
        message:
          'is not an operator here; use $and, $or or $nor (it goes under a path: {"instance.x": {"$not": {…}}}; to negate conditions, $nor: [ … ])',
      },
    ]);
  });

  test('too many comparisons is not reported over other errors', () => {
    const flat = Object.fromEntries(Array.from({ length: CONDITION_MAX_COMPARISONS + 1 }, (_, i) => [`instance.f${i}`, i]));
    expect(errorsOf({ ...flat, 'instance.bad': { $exists: 1 } })).toEqual([
      { path: 'condition.instance.bad.$exists', message: 'must be true or false' },
    ]);
  });
});
