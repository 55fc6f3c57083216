/**
 * The OpenAPI schemas of a trigger condition, from the same words and limits the codec
 * (check.ts) uses: one component per nesting level, so the document bounds the depth as the
 * codec does. What a schema cannot say (the 64 comparisons, 16 KiB) the descriptions do.
 */
import { JSON_VALUE, ref, type Schema } from '../../kernel/openapi';
import { COMPARED_TIMESTAMP } from '../../kernel/timestamps';
import {
  CONDITION_MAX_BYTES,
  CONDITION_MAX_COMPARISONS,
  CONDITION_MAX_DEPTH,
  CONDITION_MAX_LIST,
  CONDITION_MAX_PATH_SEGMENTS,
} from '../../kernel/limits';
import { LOGICAL, NOT, SIGNAL_FIELDS } from './syntax';

const levelName = (level: number) => `Condition${level}`;
const levelRef = (level: number) => ref(levelName(level));

const ORDERABLE: Schema = { anyOf: [{ type: 'number' }, { type: 'string', format: 'date-time', pattern: COMPARED_TIMESTAMP }] };
const LIST: Schema = { type: 'array', maxItems: CONDITION_MAX_LIST, items: JSON_VALUE };

/** A path's operators: `instance.` paths may hold `$changed` too; inside `$not`, no `$not` again. */
const operatorsName = (withChanged: boolean, negatable: boolean) =>
  `Condition${withChanged ? 'Instance' : ''}Operators${negatable ? '' : 'Negated'}`;
const operatorsRef = (withChanged: boolean, negatable = true) => ref(operatorsName(withChanged, negatable));

const operators = (withChanged: boolean, negatable: boolean): Schema => ({
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: {
    $eq: JSON_VALUE,
    $ne: JSON_VALUE,
    $in: LIST,
    $nin: LIST,
    $gt: ORDERABLE,
    $gte: ORDERABLE,
    $lt: ORDERABLE,
    $lte: ORDERABLE,
    $exists: { type: 'boolean' },
    ...(withChanged
      ? {
          $changed: {
            anyOf: [
              { type: 'boolean' },
              { type: 'object', minProperties: 1, additionalProperties: false, properties: { from: JSON_VALUE, to: JSON_VALUE } },
            ],
          },
        }
      : {}),
    ...(negatable ? { [NOT]: operatorsRef(withChanged, false) } : {}),
  },
});

/** A path's value: a value other than an object (compared with $eq), or an object of operators. */
const fieldSpec = (withChanged: boolean): Schema => ({
  anyOf: [{ type: ['null', 'boolean', 'number', 'string'] }, { type: 'array', items: JSON_VALUE }, operatorsRef(withChanged)],
});

const segments = `(\\.[^.]+){1,${CONDITION_MAX_PATH_SEGMENTS}}$`;

/** One level: its lists ($and, $or, $nor) hold conditions of the next level, the last level none. */
const level = (n: number): Schema => ({
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  patternProperties: {
    ...(n < CONDITION_MAX_DEPTH
      ? { [`^\\$(${LOGICAL.map((l) => l.slice(1)).join('|')})$`]: { type: 'array', minItems: 1, items: levelRef(n + 1) } }
      : {}),
    [`^instance${segments}`]: fieldSpec(true),
    [`^previous${segments}`]: fieldSpec(false),
    [`^signal\\.(${SIGNAL_FIELDS.join('|')})$`]: fieldSpec(false),
  },
});

/** `components.schemas` of the condition's levels. */
export const conditionSchemas = (): Record<string, Schema> => ({
  ...Object.fromEntries(Array.from({ length: CONDITION_MAX_DEPTH }, (_, i) => [levelName(i + 1), level(i + 1)])),
  ...Object.fromEntries(
    [true, false].flatMap((withChanged) =>
      [true, false].map((negatable) => [operatorsName(withChanged, negatable), operators(withChanged, negatable)]),
    ),
  ),
});

export const CONDITION_SCHEMA: Schema = {
  ...levelRef(1),
  description:
    'When the trigger fires (absent: always): MongoDB-style operators ($eq $ne $in $nin $gt $gte $lt $lte $exists $not, $and $or $nor) ' +
    'over instance., previous. and signal. paths, and $changed (true, false or {from, to}) comparing instance with previous. ' +
    `At most ${CONDITION_MAX_DEPTH} levels, ${CONDITION_MAX_COMPARISONS} comparisons and ${CONDITION_MAX_BYTES} bytes as JSON`,
};
