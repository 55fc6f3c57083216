/**
 * The OpenAPI schemas of a trigger condition, from the same words and limits the codec
 * (check.ts) uses: one component per nesting level, so the document bounds the depth as the
 * codec does. What a schema cannot say (the 64 comparisons, 16 KiB) the descriptions do.
 */
import { JSON_VALUE, ref, type Schema } from '../../kernel/openapi';
import { CONDITION_MAX_BYTES, CONDITION_MAX_COMPARISONS, CONDITION_MAX_DEPTH, CONDITION_MAX_PATH_SEGMENTS } from '../../kernel/limits';
import { OPERATORS } from './operators';
import { LOGICAL, SIGNAL_FIELDS } from './syntax';

const levelName = (level: number) => `Condition${level}`;
const levelRef = (level: number) => ref(levelName(level));

/**
 * A path's operators: only `instance.` paths take those comparing with previous (`$changed`),
 * and inside a nesting operator (`$not`) there is none again. Named as they were before the
 * operators became rows, so the document keeps its component names.
 */
const operatorsName = (onInstance: boolean, negatable: boolean) =>
  `Condition${onInstance ? 'Instance' : ''}Operators${negatable ? '' : 'Negated'}`;
const operatorsRef = (onInstance: boolean, negatable = true) => ref(operatorsName(onInstance, negatable));

const operators = (onInstance: boolean, negatable: boolean): Schema => ({
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: Object.fromEntries(
    OPERATORS.filter((row) => (onInstance || !row.comparesWithPrevious) && (negatable || !row.nests)).map((row) => [
      row.name,
      row.schema(operatorsRef(onInstance, false)),
    ]),
  ),
});

/** A path's value: a value other than an object (compared with $eq), or an object of operators. */
const fieldSpec = (onInstance: boolean): Schema => ({
  anyOf: [{ type: ['null', 'boolean', 'number', 'string'] }, { type: 'array', items: JSON_VALUE }, operatorsRef(onInstance)],
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
    [true, false].flatMap((onInstance) =>
      [true, false].map((negatable) => [operatorsName(onInstance, negatable), operators(onInstance, negatable)]),
    ),
  ),
});

const ON_EVERY_PATH = OPERATORS.filter((row) => !row.comparesWithPrevious).map((row) => row.name);
const WITH_PREVIOUS = OPERATORS.flatMap((row) => (row.comparesWithPrevious ? [`${row.name} (${row.comparesWithPrevious.takes})`] : []));

export const CONDITION_SCHEMA: Schema = {
  ...levelRef(1),
  description:
    `When the trigger fires (absent: always): MongoDB-style operators (${ON_EVERY_PATH.join(' ')}, ${LOGICAL.join(' ')}) ` +
    `over instance., previous. and signal. paths, and ${WITH_PREVIOUS.join(', ')} comparing instance with previous. ` +
    `At most ${CONDITION_MAX_DEPTH} levels, ${CONDITION_MAX_COMPARISONS} comparisons and ${CONDITION_MAX_BYTES} bytes as JSON`,
};
