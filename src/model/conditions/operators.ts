/**
 * The field operators, one row each: MongoDB's query operators plus `$changed` for transitions.
 * A new operator is a row here and its line in docs/conditions.md; check.ts, evaluate.ts and
 * schemas.ts read the rows. Their order is the schema's (and the admin hint's) order.
 */
import { JSON_VALUE, type Schema } from '../../kernel/openapi';
import { COMPARED_TIMESTAMP, isComparedTimestamp } from '../../kernel/timestamps';
import { CONDITION_MAX_LIST } from '../../kernel/limits';
import { changed, changedOperandProblem } from './changed';
import { onValue, type OperatorRow } from './operator-row';
import { isPlainObject } from './syntax';
import { compare, equal, quote, type Meter } from './values';

const takesAnyValue = () => undefined;

const LIST: Schema = { type: 'array', maxItems: CONDITION_MAX_LIST, items: JSON_VALUE };
const listProblem = (operand: unknown) => {
  if (!Array.isArray(operand)) return 'must be a list of values';
  return operand.length > CONDITION_MAX_LIST ? `has ${operand.length} values; at most ${CONDITION_MAX_LIST}` : undefined;
};
/** Whether the value equals one of a list's items (an operand that is not a list: none). */
const inList = (value: unknown, operand: unknown, meter: Meter) => Array.isArray(operand) && operand.some((o) => equal(value, o, meter));

const ORDERABLE: Schema = { anyOf: [{ type: 'number' }, { type: 'string', format: 'date-time', pattern: COMPARED_TIMESTAMP }] };
const isOrderable = (v: unknown) => (typeof v === 'number' && Number.isFinite(v)) || (typeof v === 'string' && isComparedTimestamp(v));

/** `$gt` and its kin: `holds` reads how the value orders against the operand (values.ts `compare`). */
const ordering = (name: `$${string}`, symbol: string, holds: (d: number) => boolean, doc: string): OperatorRow => ({
  name,
  doc,
  operandProblem: (operand) => (isOrderable(operand) ? undefined : 'must be a number or an RFC 3339 timestamp'),
  fails: onValue((value, operand, { path }) => {
    const d = compare(value, operand);
    if (d === undefined)
      return `${path} is not a ${typeof operand === 'number' ? 'number' : 'timestamp'} to compare with ${quote(operand)}`;
    return holds(d) ? undefined : `${path} is not ${symbol} ${quote(operand)}`;
  }),
  schema: () => ORDERABLE,
});

const NOT = '$not';

export const OPERATORS: readonly OperatorRow[] = [
  {
    name: '$eq',
    doc: 'equals the value (objects and arrays compare by content)',
    operandProblem: takesAnyValue,
    fails: onValue((value, operand, { path, meter }) => (equal(value, operand, meter) ? undefined : `${path} is not ${quote(operand)}`)),
    schema: () => JSON_VALUE,
  },
  {
    name: '$ne',
    doc: 'does not equal the value (objects and arrays compare by content)',
    operandProblem: takesAnyValue,
    fails: onValue((value, operand, { path, meter }) => (equal(value, operand, meter) ? `${path} is ${quote(operand)}` : undefined)),
    schema: () => JSON_VALUE,
  },
  {
    name: '$in',
    doc: 'equals one of the values of a list',
    operandProblem: listProblem,
    fails: onValue((value, operand, { path, meter }) =>
      inList(value, operand, meter) ? undefined : `${path} is none of ${quote(operand)}`,
    ),
    schema: () => LIST,
  },
  {
    name: '$nin',
    doc: 'equals none of the values of a list',
    operandProblem: listProblem,
    // An operand that is not a list (a condition not checked) is false, as for $in.
    fails: onValue((value, operand, { path, meter }) =>
      Array.isArray(operand) && !inList(value, operand, meter) ? undefined : `${path} is one of ${quote(operand)}`,
    ),
    schema: () => LIST,
  },
  ordering('$gt', '>', (d) => d > 0, 'is greater than a number, or later than an RFC 3339 timestamp'),
  ordering('$gte', '>=', (d) => d >= 0, 'is greater than or equal to a number, or not earlier than an RFC 3339 timestamp'),
  ordering('$lt', '<', (d) => d < 0, 'is less than a number, or earlier than an RFC 3339 timestamp'),
  ordering('$lte', '<=', (d) => d <= 0, 'is less than or equal to a number, or not later than an RFC 3339 timestamp'),
  {
    name: '$exists',
    doc: '`true`: is present (even `null`); `false`: is absent',
    operandProblem: (operand) => (typeof operand === 'boolean' ? undefined : 'must be true or false'),
    // The one operator an absent path can satisfy.
    fails: (operand, { path, found }) => (found.found === operand ? undefined : `${path} is ${found.found ? 'present' : 'absent'}`),
    schema: () => ({ type: 'boolean' }),
  },
  {
    name: '$changed',
    doc:
      'on an `instance.` path only. `true`: differs from the same path in `previous`; `false`: is the same; ' +
      '`{"from": A, "to": B}`: was A in `previous` and is B now (either side may be left out)',
    comparesWithPrevious: { takes: 'true, false or {from, to}' },
    operandProblem: changedOperandProblem,
    fails: changed,
    schema: () => ({
      anyOf: [
        { type: 'boolean' },
        { type: 'object', minProperties: 1, additionalProperties: false, properties: { from: JSON_VALUE, to: JSON_VALUE } },
      ],
    }),
  },
  {
    name: NOT,
    doc:
      'an object of the operators above (no `$not` inside) that do not all hold, as in MongoDB: ' +
      '`{"instance.status": {"$not": {"$in": ["void", "refunded"]}}}`. An absent field makes them false, so `$not` holds',
    nests: true,
    misplaced: ` (it goes under a path: {"instance.x": {"${NOT}": {…}}}; to negate conditions, $nor: [ … ])`,
    operandProblem: (operand, within) => {
      if (within !== undefined) return `is inside ${within}: ${NOT} of ${NOT} is the operators themselves`;
      return isPlainObject(operand) ? undefined : 'must be an object of operators, e.g. {"$in": [ … ]}';
    },
    // As in MongoDB, an absent path makes the operators false, so $not holds.
    fails: (operand, { path, firstFailing }) => {
      if (!isPlainObject(operand)) return `${NOT} is not a condition this build reads`;
      return firstFailing(operand) === undefined ? `${path} matches ${quote(operand)}, which ${NOT} refuses` : undefined;
    },
    schema: (nested) => nested,
  },
];

export const OPERATOR_NAMES: readonly string[] = OPERATORS.map((row) => row.name);

// A Map, so a key such as `constructor` or `__proto__` is no operator.
const BY_NAME: ReadonlyMap<string, OperatorRow> = new Map(OPERATORS.map((row) => [row.name, row]));
export const operatorNamed = (name: string): OperatorRow | undefined => BY_NAME.get(name);
