import type { JsonValue } from '../../src/kernel/json-value';
import { evaluateCondition } from '../../src/model/conditions/evaluate';
import { Condition, ConditionSubject, NO_PREVIOUS } from '../../src/model/conditions/syntax';

const SECRET = 's3cr3t-token-value';

const order = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  id: 7,
  status: 'paid',
  total: 120,
  note: null,
  token: SECRET,
  placed_at: '2024-05-01T12:00:00.5Z',
  customer: { name: 'Ada', address: { city: 'London', tags: ['vip', 'eu'] } },
  lines: [
    { sku: 'A-1', qty: 2 },
    { sku: 'B-2', qty: 1 },
  ],
  ...over,
});

const SIGNAL = {
  id: '0f8fad5b-d9cb-469f-a165-70867728950e',
  signal: 'post_save',
  app_label: 'shop',
  model_name: 'order',
  occurred_at: '2024-05-01T12:00:01Z',
  instance_key: '7',
};

const subject = (instance = order(), previous?: Record<string, unknown>): ConditionSubject =>
  previous === undefined ? { instance, signal: SIGNAL } : { instance, previous, signal: SIGNAL };

const WITH_PREVIOUS = subject(order(), order({ status: 'pending', total: 90, coupon: 'SPRING' }));

const holds = (condition: Condition, s: ConditionSubject = WITH_PREVIOUS) => evaluateCondition(condition, s).held;

describe('$eq and shorthand', () => {
  test('a plain value is shorthand for $eq', () => {
    expect(holds({ 'instance.status': 'paid' })).toBe(true);
    expect(holds({ 'instance.status': { $eq: 'paid' } })).toBe(true);
    expect(holds({ 'instance.status': 'pending' })).toBe(false);
  });

  test('$eq compares objects and arrays by content, whatever the key order', () => {
    expect(holds({ 'instance.customer.address': { $eq: { tags: ['vip', 'eu'], city: 'London' } } })).toBe(true);
    expect(holds({ 'instance.customer.address': { $eq: { city: 'London' } } })).toBe(false);
    expect(holds({ 'instance.customer.address': { $eq: { city: 'London', tags: ['vip', 'eu'], zip: null } } })).toBe(false);
    expect(holds({ 'instance.customer.address': { $eq: { city: 'London', tags: ['vip'] } } })).toBe(false);
    expect(holds({ 'instance.lines.0': { $eq: { qty: 2, sku: 'A-1' } } })).toBe(true);
  });

  test('a list is shorthand for $eq too, compared item by item in order', () => {
    expect(holds({ 'instance.customer.address.tags': ['vip', 'eu'] })).toBe(true);
    expect(holds({ 'instance.customer.address.tags': ['eu', 'vip'] })).toBe(false);
    expect(holds({ 'instance.customer.address.tags': ['vip'] })).toBe(false);
    expect(
      holds({
        'instance.lines': [
          { sku: 'A-1', qty: 2 },
          { qty: 1, sku: 'B-2' },
        ],
      }),
    ).toBe(true);
  });

  test('$eq with an empty object compares with {}', () => {
    expect(holds({ 'instance.x': { $eq: {} } }, subject(order({ x: {} })))).toBe(true);
    expect(holds({ 'instance.x': { $eq: {} } }, subject(order({ x: { a: 1 } })))).toBe(false);
  });

  test('null equals only null; an array is not an object', () => {
    expect(holds({ 'instance.note': null })).toBe(true);
    expect(holds({ 'instance.status': null })).toBe(false);
    expect(holds({ 'instance.x': [] }, subject(order({ x: {} })))).toBe(false);
    expect(holds({ 'instance.x': { $eq: {} } }, subject(order({ x: [] })))).toBe(false);
  });

  test('a number never equals its string', () => {
    expect(holds({ 'instance.total': '120' })).toBe(false);
    expect(holds({ 'instance.total': 120 })).toBe(true);
  });

  test('the shorthand clause is the path; the operator clause names the operator', () => {
    expect(evaluateCondition({ 'instance.status': 'pending' }, WITH_PREVIOUS)).toEqual({
      held: false,
      clause: 'condition.instance.status',
      detail: 'instance.status is not "pending"',
    });
    expect(evaluateCondition({ 'instance.status': { $eq: 'pending' } }, WITH_PREVIOUS)).toEqual({
      held: false,
      clause: 'condition.instance.status.$eq',
      detail: 'instance.status is not "pending"',
    });
  });
});

describe('$ne, $in, $nin', () => {
  test('$ne holds for a different value and not for the same', () => {
    expect(holds({ 'instance.status': { $ne: 'pending' } })).toBe(true);
    expect(evaluateCondition({ 'instance.status': { $ne: 'paid' } }, WITH_PREVIOUS)).toEqual({
      held: false,
      clause: 'condition.instance.status.$ne',
      detail: 'instance.status is "paid"',
    });
    expect(holds({ 'instance.lines.0': { $ne: { qty: 2, sku: 'A-1' } } })).toBe(false);
  });

  test('$in holds when one of the values equals the field, by content', () => {
    expect(holds({ 'instance.status': { $in: ['pending', 'paid'] } })).toBe(true);
    expect(holds({ 'instance.lines.1': { $in: [{ sku: 'B-2', qty: 1 }] } })).toBe(true);
    expect(evaluateCondition({ 'instance.status': { $in: ['pending', 'shipped'] } }, WITH_PREVIOUS)).toEqual({
      held: false,
      clause: 'condition.instance.status.$in',
      detail: 'instance.status is none of ["pending","shipped"]',
    });
    expect(holds({ 'instance.status': { $in: [] } })).toBe(false);
  });

  test('$nin holds when none of the values equals the field', () => {
    expect(holds({ 'instance.status': { $nin: ['pending', 'shipped'] } })).toBe(true);
    expect(holds({ 'instance.status': { $nin: [] } })).toBe(true);
    expect(evaluateCondition({ 'instance.status': { $nin: ['paid'] } }, WITH_PREVIOUS)).toEqual({
      held: false,
      clause: 'condition.instance.status.$nin',
      detail: 'instance.status is one of ["paid"]',
    });
  });

  test('$in and $nin are false on a missing field', () => {
    expect(holds({ 'instance.missing': { $in: [null] } })).toBe(false);
    expect(holds({ 'instance.missing': { $nin: [1] } })).toBe(false);
  });
});

describe('$gt, $gte, $lt, $lte', () => {
  test.each([
    ['$gt', 119, true],
    ['$gt', 120, false],
    ['$gte', 120, true],
    ['$gte', 120.5, false],
    ['$lt', 121, true],
    ['$lt', 120, false],
    ['$lte', 120, true],
    ['$lte', -1, false],
  ])('on numbers: total %s %d is %s', (op, operand, expected) => {
    expect(holds({ 'instance.total': { [op]: operand } })).toBe(expected);
  });

  test('the detail names the comparison and the operand', () => {
    expect(evaluateCondition({ 'instance.total': { $gt: 500 } }, WITH_PREVIOUS)).toEqual({
      held: false,
      clause: 'condition.instance.total.$gt',
      detail: 'instance.total is not > 500',
    });
    expect(evaluateCondition({ 'instance.total': { $lte: 5 } }, WITH_PREVIOUS)).toMatchObject({ detail: 'instance.total is not <= 5' });
  });

  test('several operators on one path must all hold', () => {
    expect(holds({ 'instance.total': { $gte: 100, $lt: 200 } })).toBe(true);
    expect(evaluateCondition({ 'instance.total': { $gte: 100, $lt: 110 } }, WITH_PREVIOUS)).toMatchObject({
      held: false,
      clause: 'condition.instance.total.$lt',
    });
  });

  test('timestamps compare as instants across offsets', () => {
    const at = (placed_at: string) => subject(order({ placed_at }));
    expect(holds({ 'instance.placed_at': { $gte: '2024-05-01T14:00:00.5+02:00' } })).toBe(true);
    expect(holds({ 'instance.placed_at': { $lte: '2024-05-01T14:00:00.5+02:00' } })).toBe(true);
    expect(holds({ 'instance.placed_at': { $gt: '2024-05-01T14:00:00.5+02:00' } })).toBe(false);
    expect(holds({ 'instance.placed_at': { $lt: '2024-05-01T07:30:00.6-04:30' } })).toBe(true);
    expect(holds({ 'instance.placed_at': { $gt: '2024-05-01T13:59:59+02:00' } }, at('2024-05-01T12:00:00Z'))).toBe(true);
    expect(holds({ 'instance.placed_at': { $gt: '2024-04-30T23:59:59.999-12:00' } }, at('2024-05-01T12:00:00Z'))).toBe(true);
    expect(holds({ 'instance.placed_at': { $gt: '2024-05-01T00:00:00.001-12:00' } }, at('2024-05-01T12:00:00Z'))).toBe(false);
    expect(
      holds({ 'instance.placed_at': { $gte: '2024-05-02T00:00:00+12:00', $lte: '2024-05-01T12:00:00Z' } }, at('2024-05-01T12:00:00-00:00')),
    ).toBe(true);
  });

  test('timestamps with different fraction lengths compare exactly', () => {
    const at = (placed_at: string) => subject(order({ placed_at }));
    expect(holds({ 'instance.placed_at': { $gte: '2024-05-01T12:00:00.500000000Z', $lte: '2024-05-01T12:00:00.50Z' } })).toBe(true);
    expect(holds({ 'instance.placed_at': { $gt: '2024-05-01T12:00:00.4999999Z' } })).toBe(true);
    expect(holds({ 'instance.placed_at': { $lt: '2024-05-01T12:00:00.5000001Z' } })).toBe(true);
    expect(holds({ 'instance.placed_at': { $gt: '2024-05-01T12:00:00.5000001Z' } })).toBe(false);
    expect(holds({ 'instance.placed_at': { $gt: '2024-05-01T12:00:00.123456788Z' } }, at('2024-05-01T12:00:00.123456789Z'))).toBe(true);
    expect(holds({ 'instance.placed_at': { $lt: '2024-05-01T12:00:00.123456790Z' } }, at('2024-05-01T12:00:00.123456789Z'))).toBe(true);
    expect(
      holds({ 'instance.placed_at': { $gte: '2024-05-01T12:00:00Z', $lte: '2024-05-01T12:00:00.000Z' } }, at('2024-05-01t12:00:00z')),
    ).toBe(true);
  });

  test('a leap second (:60) is the last instant of its minute, on either side, with any offset or fraction', () => {
    const at = (placed_at: string) => subject(order({ placed_at }));
    const leap = at('2016-12-31T23:59:60Z');
    expect(holds({ 'instance.placed_at': { $gt: '2016-12-31T23:59:59.999999999Z' } }, leap)).toBe(true);
    expect(holds({ 'instance.placed_at': { $lt: '2017-01-01T00:00:00Z' } }, leap)).toBe(true);
    expect(holds({ 'instance.placed_at': { $gte: '2016-12-31T23:59:60.5Z', $lte: '2016-12-31T23:59:60Z' } }, leap)).toBe(true);
    expect(holds({ 'instance.placed_at': { $gt: '2016-12-31T23:59:60Z' } }, at('2016-12-31T23:59:59.9999Z'))).toBe(false);
    expect(holds({ 'instance.placed_at': { $lt: '2016-12-31T23:59:60Z' } }, at('2016-12-31T23:59:59.9999Z'))).toBe(true);
    expect(holds({ 'instance.placed_at': { $gt: '2016-12-31T23:59:60Z' } }, at('2017-01-01T00:00:00.000001Z'))).toBe(true);
    // The same minute written with an offset.
    expect(holds({ 'instance.placed_at': { $gte: '2017-01-01T00:59:60+01:00', $lte: '2016-12-31T23:59:60Z' } }, leap)).toBe(true);
  });

  test('a number against a string is false, with a detail, both ways', () => {
    expect(evaluateCondition({ 'instance.status': { $gt: 1 } }, WITH_PREVIOUS)).toEqual({
      held: false,
      clause: 'condition.instance.status.$gt',
      detail: 'instance.status is not a number to compare with 1',
    });
    expect(holds({ 'instance.total': { $lt: '2024-05-01T12:00:00Z' } })).toBe(false);
    expect(holds({ 'instance.total': { $gte: '120' } })).toBe(false);
  });

  test('strings that are not both timestamps do not order', () => {
    expect(evaluateCondition({ 'instance.status': { $gt: '2024-05-01T12:00:00Z' } }, WITH_PREVIOUS)).toEqual({
      held: false,
      clause: 'condition.instance.status.$gt',
      detail: 'instance.status is not a timestamp to compare with "2024-05-01T12:00:00Z"',
    });
    expect(holds({ 'instance.status': { $gt: 'a' } })).toBe(false);
    expect(holds({ 'instance.status': { $lt: 'z' } })).toBe(false);
    expect(holds({ 'instance.placed_at': { $gt: '2024-05-01' } })).toBe(false);
    expect(holds({ 'instance.placed_at': { $gt: '2023-02-29T00:00:00Z' } })).toBe(false);
  });

  test('null, booleans, objects and arrays do not order', () => {
    for (const value of [null, true, { a: 1 }, [1]]) {
      expect(holds({ 'instance.x': { $gte: 0 } }, subject(order({ x: value })))).toBe(false);
      expect(holds({ 'instance.x': { $lte: 0 } }, subject(order({ x: value })))).toBe(false);
    }
  });
});

describe('$exists', () => {
  test('true: present, even when null', () => {
    expect(holds({ 'instance.status': { $exists: true } })).toBe(true);
    expect(holds({ 'instance.note': { $exists: true } })).toBe(true);
    expect(evaluateCondition({ 'instance.missing': { $exists: true } }, WITH_PREVIOUS)).toEqual({
      held: false,
      clause: 'condition.instance.missing.$exists',
      detail: 'instance.missing is absent',
    });
  });

  test('false: absent; null is not absent', () => {
    expect(holds({ 'instance.missing': { $exists: false } })).toBe(true);
    expect(holds({ 'instance.customer.missing.deeper': { $exists: false } })).toBe(true);
    expect(evaluateCondition({ 'instance.note': { $exists: false } }, WITH_PREVIOUS)).toEqual({
      held: false,
      clause: 'condition.instance.note.$exists',
      detail: 'instance.note is present',
    });
  });

  test('on previous. paths', () => {
    expect(holds({ 'previous.coupon': { $exists: true } })).toBe(true);
    expect(holds({ 'instance.coupon': { $exists: false } })).toBe(true);
  });
});

describe('$changed', () => {
  test('true: the path differs from previous; false: it is the same', () => {
    expect(holds({ 'instance.status': { $changed: true } })).toBe(true);
    expect(holds({ 'instance.id': { $changed: false } })).toBe(true);
    expect(evaluateCondition({ 'instance.id': { $changed: true } }, WITH_PREVIOUS)).toEqual({
      held: false,
      clause: 'condition.instance.id.$changed',
      detail: 'instance.id did not change',
    });
    expect(evaluateCondition({ 'instance.status': { $changed: false } }, WITH_PREVIOUS)).toEqual({
      held: false,
      clause: 'condition.instance.status.$changed',
      detail: 'instance.status changed',
    });
  });

  test('objects and arrays change by content', () => {
    const s = subject(order({ lines: [{ qty: 2, sku: 'A-1' }] }), order({ lines: [{ sku: 'A-1', qty: 2 }] }));
    expect(holds({ 'instance.lines': { $changed: false } }, s)).toBe(true);
    expect(holds({ 'instance.lines.0.qty': { $changed: false } }, s)).toBe(true);
    const t = subject(order({ lines: [{ sku: 'A-1', qty: 3 }] }), order({ lines: [{ sku: 'A-1', qty: 2 }] }));
    expect(holds({ 'instance.lines': { $changed: true } }, t)).toBe(true);
    expect(holds({ 'instance.lines.0.sku': { $changed: true } }, t)).toBe(false);
  });

  test('{from, to}: was from in previous and is to now', () => {
    expect(holds({ 'instance.status': { $changed: { from: 'pending', to: 'paid' } } })).toBe(true);
    expect(evaluateCondition({ 'instance.status': { $changed: { from: 'draft', to: 'paid' } } }, WITH_PREVIOUS)).toEqual({
      held: false,
      clause: 'condition.instance.status.$changed',
      detail: 'instance.status did not change from "draft" to "paid"',
    });
    expect(holds({ 'instance.status': { $changed: { from: 'pending', to: 'shipped' } } })).toBe(false);
  });

  test('{from} or {to} alone', () => {
    expect(holds({ 'instance.status': { $changed: { from: 'pending' } } })).toBe(true);
    expect(holds({ 'instance.status': { $changed: { to: 'paid' } } })).toBe(true);
    expect(evaluateCondition({ 'instance.status': { $changed: { to: 'shipped' } } }, WITH_PREVIOUS)).toMatchObject({
      held: false,
      detail: 'instance.status did not change to "shipped"',
    });
    expect(evaluateCondition({ 'instance.status': { $changed: { from: 'draft' } } }, WITH_PREVIOUS)).toMatchObject({
      held: false,
      detail: 'instance.status did not change from "draft"',
    });
  });

  test('a field absent from both the instance and previous (a misspelling) is named absent, as $eq names it', () => {
    for (const operand of [true, { from: 'pending', to: 'paid' }, { to: 'paid' }] as JsonValue[])
      expect(evaluateCondition({ 'instance.stauts': { $changed: operand } }, WITH_PREVIOUS)).toEqual({
        held: false,
        clause: 'condition.instance.stauts.$changed',
        detail: 'instance.stauts is absent from both the instance and previous',
      });
    expect(holds({ 'instance.stauts': { $changed: false } })).toBe(true);
  });

  test('from and to equal the same unchanged value: no transition, false', () => {
    expect(holds({ 'instance.id': { $changed: { from: 7, to: 7 } } })).toBe(false);
    expect(holds({ 'instance.id': { $changed: { to: 7 } } })).toBe(false);
  });

  test('absent on one side counts as a change; absent on both does not', () => {
    expect(holds({ 'instance.coupon': { $changed: true } })).toBe(true);
    expect(holds({ 'instance.coupon': { $changed: { from: 'SPRING' } } })).toBe(true);
    expect(holds({ 'instance.coupon': { $changed: { to: null } } })).toBe(false);
    const added = subject(order({ gift: 'card' }), order());
    expect(holds({ 'instance.gift': { $changed: true } }, added)).toBe(true);
    expect(holds({ 'instance.gift': { $changed: { to: 'card' } } }, added)).toBe(true);
    expect(holds({ 'instance.gift': { $changed: { from: null, to: 'card' } } }, added)).toBe(false);
    expect(holds({ 'instance.nowhere': { $changed: true } })).toBe(false);
    expect(holds({ 'instance.nowhere': { $changed: false } })).toBe(true);
  });

  test('null and absent are different states', () => {
    const s = subject(order({ note: null }), order({ note: undefined }));
    delete (s.previous as Record<string, unknown>).note;
    expect(holds({ 'instance.note': { $changed: true } }, s)).toBe(true);
    expect(holds({ 'instance.note': { $changed: { to: null } } }, s)).toBe(true);
  });

  test('without previous it is false: the signal has no previous state', () => {
    for (const $changed of [true, false, { from: 'pending', to: 'paid' }, { to: 'paid' }] as JsonValue[]) {
      expect(evaluateCondition({ 'instance.status': { $changed } }, subject())).toEqual({
        held: false,
        clause: 'condition.instance.status.$changed',
        detail: NO_PREVIOUS,
      });
    }
    expect(NO_PREVIOUS).toBe('the signal has no previous state');
  });
});

describe('$not', () => {
  test('holds where its operators do not all hold, as in MongoDB', () => {
    expect(holds({ 'instance.status': { $not: { $in: ['pending', 'refunded'] } } })).toBe(true);
    expect(evaluateCondition({ 'instance.status': { $not: { $in: ['paid', 'void'] } } }, WITH_PREVIOUS)).toEqual({
      held: false,
      clause: 'condition.instance.status.$not',
      detail: 'instance.status matches {"$in":["paid","void"]}, which $not refuses',
    });
    expect(holds({ 'instance.total': { $not: { $gte: 100, $lt: 200 } } })).toBe(false);
    expect(holds({ 'instance.total': { $not: { $gte: 100, $lt: 110 } } })).toBe(true);
    expect(holds({ 'instance.total': { $gt: 0, $not: { $gt: 1000 } } })).toBe(true);
  });

  test('an absent path or a type mismatch makes its operators false, so $not holds', () => {
    expect(holds({ 'instance.missing': { $not: { $eq: 1 } } })).toBe(true);
    expect(holds({ 'instance.status': { $not: { $gt: 5 } } })).toBe(true);
    expect(holds({ 'instance.missing': { $not: { $exists: false } } })).toBe(false);
  });

  test('$not of $changed: the field did not change as named; without previous, false like every transition', () => {
    expect(holds({ 'instance.status': { $not: { $changed: { from: 'pending', to: 'paid' } } } })).toBe(false);
    expect(holds({ 'instance.status': { $not: { $changed: { to: 'refunded' } } } })).toBe(true);
    expect(evaluateCondition({ 'instance.status': { $not: { $changed: true } } }, subject())).toEqual({
      held: false,
      clause: 'condition.instance.status.$not.$changed',
      detail: NO_PREVIOUS,
    });
  });
});

describe('paths', () => {
  test('dotted paths read nested objects and array items by index', () => {
    expect(holds({ 'instance.customer.address.city': 'London' })).toBe(true);
    expect(holds({ 'instance.lines.0.sku': 'A-1' })).toBe(true);
    expect(holds({ 'instance.lines.1.qty': { $lt: 2 } })).toBe(true);
    expect(holds({ 'instance.customer.address.tags.1': 'eu' })).toBe(true);
  });

  test('an index past the end, a non-number or a padded number is absent', () => {
    for (const path of [
      'instance.lines.2.sku',
      'instance.lines.-1.sku',
      'instance.lines.01.sku',
      'instance.lines.first.sku',
      'instance.lines.length',
    ]) {
      expect(evaluateCondition({ [path]: { $exists: true } }, WITH_PREVIOUS)).toEqual({
        held: false,
        clause: `condition.${path}.$exists`,
        detail: `${path} is absent`,
      });
    }
  });

  test('a path through a scalar or null is absent', () => {
    expect(holds({ 'instance.status.length': { $exists: false } })).toBe(true);
    expect(holds({ 'instance.note.x': { $exists: false } })).toBe(true);
    expect(holds({ 'instance.total.0': { $exists: false } })).toBe(true);
  });

  test('a missing path is false, with a detail naming it absent', () => {
    expect(evaluateCondition({ 'instance.customer.phone': '555' }, WITH_PREVIOUS)).toEqual({
      held: false,
      clause: 'condition.instance.customer.phone',
      detail: 'instance.customer.phone is absent',
    });
    for (const spec of [
      null,
      { $eq: null },
      { $ne: 'x' },
      { $in: [null] },
      { $nin: ['x'] },
      { $gt: 0 },
      { $lte: '2024-01-01T00:00:00Z' },
    ] as JsonValue[]) {
      expect(evaluateCondition({ 'instance.missing': spec }, WITH_PREVIOUS)).toMatchObject({
        held: false,
        detail: 'instance.missing is absent',
      });
    }
  });

  test('signal. paths read the signal', () => {
    expect(holds({ 'signal.signal': 'post_save', 'signal.app_label': 'shop', 'signal.model_name': 'order' })).toBe(true);
    expect(holds({ 'signal.instance_key': '7', 'signal.id': SIGNAL.id })).toBe(true);
    expect(holds({ 'signal.occurred_at': { $gt: '2024-05-01T14:00:00+02:00' } })).toBe(true);
    expect(evaluateCondition({ 'signal.signal': 'post_delete' }, WITH_PREVIOUS)).toEqual({
      held: false,
      clause: 'condition.signal.signal',
      detail: 'signal.signal is not "post_delete"',
    });
  });

  test('previous. paths read the state before the change', () => {
    expect(holds({ 'previous.status': 'pending', 'instance.status': 'paid' })).toBe(true);
    expect(holds({ 'previous.total': { $lt: 100 }, 'instance.total': { $gte: 100 } })).toBe(true);
    expect(holds({ 'previous.lines.0.sku': 'A-1' })).toBe(true);
    expect(evaluateCondition({ 'previous.status': 'paid' }, WITH_PREVIOUS)).toEqual({
      held: false,
      clause: 'condition.previous.status',
      detail: 'previous.status is not "paid"',
    });
  });

  test('previous. paths without previous are false: the signal has no previous state', () => {
    for (const spec of ['pending', { $ne: 'x' }, { $exists: true }, { $exists: false }, { $gt: 1 }] as JsonValue[]) {
      expect(evaluateCondition({ 'previous.status': spec }, subject())).toEqual({
        held: false,
        clause: 'condition.previous.status',
        detail: NO_PREVIOUS,
      });
    }
  });

  test('own properties only: prototype members are absent', () => {
    for (const path of [
      'instance.constructor',
      'instance.__proto__',
      'instance.toString',
      'instance.hasOwnProperty',
      'instance.lines.map',
      'previous.constructor',
    ]) {
      expect(evaluateCondition({ [path]: { $exists: true } }, WITH_PREVIOUS)).toEqual({
        held: false,
        clause: `condition.${path}.$exists`,
        detail: `${path} is absent`,
      });
      expect(holds({ [path]: { $exists: false } })).toBe(true);
      expect(holds({ [path]: { $ne: 'x' } })).toBe(false);
    }
    expect(holds({ 'instance.constructor.name': 'Object' })).toBe(false);
    expect(holds({ 'instance.__proto__.constructor.name': { $exists: true } })).toBe(false);
  });

  test('an own "__proto__" key from JSON is an ordinary field', () => {
    const instance = JSON.parse('{"__proto__": {"admin": true}, "id": 1}') as Record<string, unknown>;
    expect(holds({ 'instance.__proto__.admin': true }, subject(instance))).toBe(true);
    expect(holds({ 'instance.admin': { $exists: false } }, subject(instance))).toBe(true);
  });
});

describe('combining', () => {
  test('several keys are AND-ed: the first that does not hold is the answer', () => {
    expect(holds({ 'instance.status': 'paid', 'instance.total': { $gte: 100 }, 'signal.signal': 'post_save' })).toBe(true);
    expect(evaluateCondition({ 'instance.status': 'paid', 'instance.total': { $gte: 500 }, 'instance.id': 8 }, WITH_PREVIOUS)).toEqual({
      held: false,
      clause: 'condition.instance.total.$gte',
      detail: 'instance.total is not >= 500',
    });
  });

  test('$and: all must hold; the clause names the item', () => {
    expect(holds({ $and: [{ 'instance.status': 'paid' }, { 'instance.total': { $gt: 100 } }] })).toBe(true);
    expect(evaluateCondition({ $and: [{ 'instance.status': 'paid' }, { 'instance.total': { $gt: 500 } }] }, WITH_PREVIOUS)).toEqual({
      held: false,
      clause: 'condition.$and[1].instance.total.$gt',
      detail: 'instance.total is not > 500',
    });
  });

  test('$or: one must hold', () => {
    expect(holds({ $or: [{ 'instance.status': 'pending' }, { 'instance.total': { $gt: 100 } }] })).toBe(true);
    expect(evaluateCondition({ $or: [{ 'instance.status': 'pending' }, { 'instance.total': { $gt: 500 } }] }, WITH_PREVIOUS)).toEqual({
      held: false,
      clause: 'condition.$or',
      detail: 'none of its 2 conditions held',
    });
  });

  test('$nor: none may hold; the clause names the first that did', () => {
    expect(holds({ $nor: [{ 'instance.status': 'pending' }, { 'instance.total': { $gt: 500 } }] })).toBe(true);
    expect(evaluateCondition({ $nor: [{ 'instance.status': 'pending' }, { 'instance.status': 'paid' }] }, WITH_PREVIOUS)).toEqual({
      held: false,
      clause: 'condition.$nor[1]',
      detail: 'held, and $nor wants none to',
    });
    expect(holds({ $nor: [{ 'instance.missing': 1 }] })).toBe(true);
  });

  test('nested logical operators name the full clause', () => {
    const condition: Condition = {
      'signal.signal': 'post_save',
      $and: [
        { $or: [{ 'instance.status': 'paid' }, { 'instance.status': 'shipped' }] },
        { $nor: [{ 'instance.lines.0.sku': 'Z-9' }] },
        { $and: [{ 'instance.customer.address.city': 'London' }, { 'instance.lines.1.qty': { $in: [3, 4] } }] },
      ],
    };
    expect(evaluateCondition(condition, WITH_PREVIOUS)).toEqual({
      held: false,
      clause: 'condition.$and[2].$and[1].instance.lines.1.qty.$in',
      detail: 'instance.lines.1.qty is none of [3,4]',
    });
  });

  test('the order-from-X-to-Y example of the docs', () => {
    const condition: Condition = { 'instance.status': { $changed: { from: 'pending', to: 'paid' } } };
    expect(holds(condition, subject({ id: 7, status: 'paid' }, { id: 7, status: 'pending' }))).toBe(true);
    expect(holds(condition, subject({ id: 7, status: 'paid' }, { id: 7, status: 'paid' }))).toBe(false);
    expect(holds(condition, subject({ id: 7, status: 'paid' }))).toBe(false);
  });
});

describe('details', () => {
  test('quote only the condition values, never the instance', () => {
    const s = subject(order(), order({ token: `old-${SECRET}` }));
    const conditions: Condition[] = [
      { 'instance.token': 'guess' },
      { 'instance.token': { $in: ['a', 'b'] } },
      { 'instance.token': { $gt: 5 } },
      { 'instance.token': { $lt: '2024-01-01T00:00:00Z' } },
      { 'instance.token': { $exists: false } },
      { 'instance.token': { $changed: false } },
      { 'instance.token': { $changed: { from: 'x', to: 'y' } } },
      { 'instance.id': { $changed: true } },
      { $nor: [{ 'instance.token': { $exists: true } }] },
      { $or: [{ 'instance.token': 'a' }, { 'instance.token': 'b' }] },
      { 'instance.customer': { $eq: { name: 'Bob' } } },
    ];
    for (const condition of conditions) {
      const result = evaluateCondition(condition, s);
      expect(result.held).toBe(false);
      if (!result.held) expect(result.detail).not.toContain('s3cr3t');
    }
    const ne = evaluateCondition({ 'instance.token': { $ne: SECRET } }, s);
    expect(ne).toMatchObject({ detail: `instance.token is "${SECRET}"` });
  });

  test('a long operand is cut short', () => {
    const long = 'x'.repeat(200);
    const result = evaluateCondition({ 'instance.status': long }, WITH_PREVIOUS);
    expect(result.held).toBe(false);
    if (!result.held) {
      expect(result.detail.length).toBeLessThan(100);
      expect(result.detail).toMatch(/^instance\.status is not "x+\.\.\.$/);
    }
  });
});

describe('unchecked conditions never throw', () => {
  test.each([
    ['an unknown logical operator', { $where: [{ 'instance.a': 1 }] }, 'condition.$where'],
    ['$not, which this build does not read', { $not: { 'instance.status': 'pending' } }, 'condition.$not'],
    ['an object that is not operators', { 'instance.customer': { name: 'Ada' } }, 'condition.instance.customer.name'],
    ['$and not a list', { $and: { 'instance.a': 1 } }, 'condition.$and'],
    ['an $and item not an object', { $and: [5] }, 'condition.$and[0]'],
    ['an unknown field operator', { 'instance.status': { $regex: 'p' } }, 'condition.instance.status.$regex'],
    ['$in not a list', { 'instance.status': { $in: 'paid' } }, 'condition.instance.status.$in'],
  ])('%s is false', (_name, condition, clause) => {
    const result = evaluateCondition(condition as Condition, WITH_PREVIOUS);
    expect(result).toMatchObject({ held: false, clause });
  });

  test('a condition that is not an object is false', () => {
    expect(evaluateCondition(null as unknown as Condition, WITH_PREVIOUS)).toMatchObject({ held: false, clause: 'condition' });
    expect(evaluateCondition([] as unknown as Condition, WITH_PREVIOUS)).toMatchObject({ held: false, clause: 'condition' });
  });

  test('an error while evaluating is caught and reported at condition', () => {
    const hostile = {} as Record<string, unknown>;
    Object.defineProperty(hostile, 'boom', {
      enumerable: true,
      get: () => {
        throw new TypeError('no');
      },
    });
    expect(evaluateCondition({ 'instance.boom': 1 }, subject(hostile))).toEqual({
      held: false,
      clause: 'condition',
      detail: 'could not be evaluated (TypeError)',
    });
  });

  test('the meter counts steps', () => {
    const meter = { steps: 0 };
    evaluateCondition({ 'instance.lines.0.sku': 'A-1' }, WITH_PREVIOUS, meter);
    expect(meter.steps).toBeGreaterThan(0);
    expect(meter.steps).toBeLessThan(10);
  });
});

test('without previous, a condition that reads it anywhere is false, also under $nor; an unknown root is absent', () => {
  const noPrevious: ConditionSubject = { instance: order(), signal: SIGNAL };
  expect(evaluateCondition({ $nor: [{ 'instance.status': { $changed: true } }] }, noPrevious)).toEqual({
    held: false,
    clause: 'condition.$nor[0].instance.status.$changed',
    detail: NO_PREVIOUS,
  });
  expect(evaluateCondition({ 'instance.id': 7, $or: [{ 'instance.id': 1 }, { 'previous.status': 'pending' }] }, noPrevious)).toEqual({
    held: false,
    clause: 'condition.$or[1].previous.status',
    detail: NO_PREVIOUS,
  });
  expect(evaluateCondition({ $nor: [{ 'instance.status': 'refunded' }] }, noPrevious)).toEqual({ held: true });
  expect(evaluateCondition({ bogus: { $ne: 1 } } as Condition, noPrevious)).toMatchObject({ held: false, detail: 'bogus is absent' });
});
