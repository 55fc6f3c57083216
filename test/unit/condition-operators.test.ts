import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isLeft } from 'fp-ts/Either';
import { configFrom, policyOf } from '../../src/config';
import { toFieldErrors } from '../../src/kernel/field-errors';
import { evaluateCondition } from '../../src/model/conditions/evaluate';
import { OPERATORS } from '../../src/model/conditions/operators';
import { conditionSchemas } from '../../src/model/conditions/schemas';
import type { Condition, ConditionSubject } from '../../src/model/conditions/syntax';
import { buildTriggerInputCodec } from '../../src/model/triggers/codecs';
import { triggerBody } from '../support/trigger-body';

/**
 * The operator table (src/model/conditions/operators.ts), row by row: an operand that holds, one
 * that does not (its clause and detail), and one the check refuses at the operator's path. A new
 * row fails the last test until it has its cases here, its line in docs/conditions.md and its
 * place in the schema.
 */

interface Cases {
  path: string;
  holds: unknown;
  /** What evaluating `holds` costs (src/model/conditions/budget.ts): every row keeps today's count. */
  steps: number;
  fails: unknown;
  detail: string;
  /** An operand the check refuses and its message; none where every JSON value is an operand. */
  refused?: readonly [unknown, string];
}

const SUBJECT: ConditionSubject = {
  instance: { status: 'paid', total: 120, placed_at: '2024-05-01T12:00:00Z' },
  previous: { status: 'pending', total: 120 },
  signal: { id: '1', signal: 'post_save' },
};

const ORDERABLE = 'must be a number or an RFC 3339 timestamp';

const CASES: Record<string, Cases> = {
  $eq: { path: 'instance.status', holds: 'paid', steps: 4, fails: 'void', detail: 'instance.status is not "void"' },
  $ne: { path: 'instance.status', holds: 'void', steps: 4, fails: 'paid', detail: 'instance.status is "paid"' },
  $in: {
    path: 'instance.status',
    holds: ['void', 'paid'],
    steps: 5,
    fails: ['void'],
    detail: 'instance.status is none of ["void"]',
    refused: ['paid', 'must be a list of values'],
  },
  $nin: {
    path: 'instance.status',
    holds: ['void', 'refunded'],
    steps: 5,
    fails: ['void', 'paid'],
    detail: 'instance.status is one of ["void","paid"]',
    refused: [{ a: 1 }, 'must be a list of values'],
  },
  $gt: { path: 'instance.total', holds: 100, steps: 3, fails: 120, detail: 'instance.total is not > 120', refused: ['lots', ORDERABLE] },
  $gte: {
    path: 'instance.placed_at',
    holds: '2024-05-01T14:00:00+02:00',
    steps: 3,
    fails: '2024-05-01T12:00:00.001Z',
    detail: 'instance.placed_at is not >= "2024-05-01T12:00:00.001Z"',
    refused: ['2024-05-01', ORDERABLE],
  },
  $lt: { path: 'instance.total', holds: 121, steps: 3, fails: 120, detail: 'instance.total is not < 120', refused: [null, ORDERABLE] },
  $lte: { path: 'instance.total', holds: 120, steps: 3, fails: 119, detail: 'instance.total is not <= 119', refused: [[1], ORDERABLE] },
  $exists: {
    path: 'instance.status',
    holds: true,
    steps: 3,
    fails: false,
    detail: 'instance.status is present',
    refused: [1, 'must be true or false'],
  },
  $changed: {
    path: 'instance.status',
    holds: { from: 'pending', to: 'paid' },
    steps: 7,
    fails: false,
    detail: 'instance.status changed',
    refused: [{ from: 'a', until: 'b' }, 'takes only from and to, not until'],
  },
  $not: {
    path: 'instance.status',
    holds: { $in: ['void', 'refunded'] },
    steps: 6,
    fails: { $eq: 'paid' },
    detail: 'instance.status matches {"$eq":"paid"}, which $not refuses',
    refused: ['void', 'must be an object of operators, e.g. {"$in": [ … ]}'],
  },
};

const codec = buildTriggerInputCodec(policyOf(configFrom({})));
/** The field errors of a trigger holding the condition, as the API reports them. */
const errorsOf = (condition: unknown) => {
  const r = codec.decode(triggerBody({ condition }));
  return isLeft(r) ? toFieldErrors(r.left) : [];
};

const single = (path: string, op: string, operand: unknown) => ({ [path]: { [op]: operand } }) as Condition;

describe.each(OPERATORS.map((row) => [row.name]))('%s', (name) => {
  test('holds, does not hold with its clause and detail, and refuses a bad operand at its path', () => {
    const c = CASES[name]!;
    const meter = { steps: 0 };
    expect(evaluateCondition(single(c.path, name, c.holds), SUBJECT, meter)).toEqual({ held: true });
    expect(meter.steps).toBe(c.steps);
    expect(evaluateCondition(single(c.path, name, c.fails), SUBJECT)).toEqual({
      held: false,
      clause: `condition.${c.path}.${name}`,
      detail: c.detail,
    });
    expect(errorsOf(single(c.path, name, c.holds))).toEqual([]);
    if (c.refused) {
      const [operand, message] = c.refused;
      // Under $or, so the path names the list item as well as the operator.
      expect(errorsOf({ $or: [{ 'instance.x': 1 }, single(c.path, name, operand)] })).toEqual([
        { path: `condition.$or[1].${c.path}.${name}`, message },
      ]);
    } else {
      for (const operand of [null, true, 0, 'x', [], [1, 'a'], {}, { a: { b: [] } }])
        expect(errorsOf(single(c.path, name, operand))).toEqual([]);
    }
  });
});

test('every row has all its parts: name, docs line, check, evaluation, schema fragment and the cases above', () => {
  const docs = readFileSync(join(__dirname, '..', '..', 'docs', 'conditions.md'), 'utf8');
  const inSchema = Object.keys((conditionSchemas().ConditionInstanceOperators as { properties: object }).properties);
  for (const row of OPERATORS) {
    expect(row.name).toMatch(/^\$[a-z]+$/);
    expect(row.doc).toMatch(/^\S.*\S$/);
    expect(docs).toContain(`| \`${row.name}\` | ${row.doc} |`);
    expect([typeof row.operandProblem, typeof row.fails, typeof row.schema]).toEqual(['function', 'function', 'function']);
    expect(row.schema({ $ref: '#/nested' })).toEqual(expect.any(Object));
    expect(Object.keys(CASES)).toContain(row.name);
  }
  // The schema, and the admin hint read from it, list every row in the table's order.
  expect(inSchema).toEqual(OPERATORS.map((row) => row.name));
  expect(Object.keys(CASES).sort()).toEqual(OPERATORS.map((row) => row.name).sort());
});
