import * as t from 'io-ts';
import { closestName } from '../../kernel/closest-name';
import { CONDITION_MAX_BYTES, CONDITION_MAX_COMPARISONS, CONDITION_MAX_DEPTH, CONDITION_MAX_PATH_SEGMENTS } from '../../kernel/limits';
import { OPERATOR_NAMES, operatorNamed } from './operators';
import type { OperatorRow } from './operator-row';
import { Condition, isPlainObject, LOGICAL, OTHER_SPELLINGS, ROOTS, SIGNAL_FIELDS } from './syntax';

type Problem = (context: t.Context, value: unknown, message: string) => void;

const meant = (name: string, known: readonly string[]) => {
  const other = (Object.hasOwn(OTHER_SPELLINGS, name) ? OTHER_SPELLINGS[name] : undefined) ?? closestName(name, known);
  return other ? ` (did you mean ${other}?)` : '';
};

/** Why a path cannot be read, or undefined. */
const pathProblem = (path: string): string | undefined => {
  const [root = '', ...segments] = path.split('.');
  if (!(ROOTS as readonly string[]).includes(root)) return `must start with instance., previous. or signal.${meant(root, ROOTS)}`;
  if (segments.length === 0) return `must name a field after ${root}.`;
  if (segments.length > CONDITION_MAX_PATH_SEGMENTS)
    return `has ${segments.length} segments after ${root}.; at most ${CONDITION_MAX_PATH_SEGMENTS}`;
  if (segments.some((s) => s === '')) return 'has an empty segment';
  if (root === 'signal' && (segments.length > 1 || !(SIGNAL_FIELDS as readonly string[]).includes(segments[0]!)))
    return `must be one of ${SIGNAL_FIELDS.map((f) => `signal.${f}`).join(', ')}`;
  return undefined;
};

const INSTANCE_ONLY = 'compares instance with previous: use it on an instance. path';

/** Why an operator's operand (or the path it is on) is not one it takes, or undefined. */
const operandProblem = (row: OperatorRow, operand: unknown, path: string, within: string | undefined) =>
  row.comparesWithPrevious && !path.startsWith('instance.') ? INSTANCE_ONLY : row.operandProblem(operand, within);

/** Walks a condition, reporting each problem at its path; answers how many comparisons it holds. */
const walk = (u: unknown, c: t.Context, depth: number, problem: Problem): number => {
  if (!isPlainObject(u)) return (problem(c, u, 'must be an object of paths and operators'), 0);
  if (depth > CONDITION_MAX_DEPTH) return (problem(c, u, `nests deeper than ${CONDITION_MAX_DEPTH} levels`), 0);
  if (Object.keys(u).length === 0) return (problem(c, u, 'must hold at least one path or operator'), 0);
  let comparisons = 0;
  for (const [key, value] of Object.entries(u)) {
    const at = t.appendContext(c, key, t.unknown, value);
    if (key.startsWith('$')) comparisons += logical(key, value, at, depth, problem);
    else comparisons += fieldSpec(key, value, at, problem);
  }
  return comparisons;
};

const logical = (key: string, value: unknown, at: t.Context, depth: number, problem: Problem): number => {
  if ((LOGICAL as readonly string[]).includes(key)) {
    if (!Array.isArray(value) || value.length === 0) return (problem(at, value, 'must be a non-empty list of conditions'), 0);
    return value.reduce((n: number, v, i) => n + walk(v, t.appendContext(at, String(i), t.unknown, v), depth + 1, problem), 0);
  }
  const row = operatorNamed(key);
  const where = row ? (row.misplaced ?? ' (a field operator: put it under a path)') : meant(key, LOGICAL);
  return (problem(at, value, `is not an operator here; use $and, $or or $nor${where}`), 0);
};

const fieldSpec = (path: string, value: unknown, at: t.Context, problem: Problem): number => {
  const bad = pathProblem(path);
  if (bad) return (problem(at, value, bad), 0);
  return isPlainObject(value) ? operators(path, value, at, problem) : 1;
};

/**
 * A path's operators; `within` is the nesting operator ($not) they are under, if any: each
 * operator is one comparison, a nesting one the comparisons it holds.
 */
const operators = (path: string, ops: Record<string, unknown>, at: t.Context, problem: Problem, within?: string): number => {
  if (Object.keys(ops).length === 0) return (problem(at, ops, 'must hold at least one operator; to compare with {}, use $eq'), 0);
  let comparisons = 0;
  for (const [op, operand] of Object.entries(ops)) {
    const opAt = t.appendContext(at, op, t.unknown, operand);
    const row = operatorNamed(op);
    if (!row) {
      problem(opAt, operand, `is not an operator${meant(op, OPERATOR_NAMES)}; to compare with an object, use $eq`);
      continue;
    }
    const message = operandProblem(row, operand, path, within);
    if (message) problem(opAt, operand, message);
    if (!row.nests) comparisons++;
    else if (!message && isPlainObject(operand)) comparisons += operators(path, operand, opAt, problem, op);
  }
  return comparisons;
};

/** A trigger's `condition`, checked when the trigger is written; each error names its path. */
export const ConditionCodec = new t.Type<Condition, Condition, unknown>(
  'Condition',
  (u): u is Condition => isPlainObject(u),
  (u, c) => {
    const errors: t.ValidationError[] = [];
    const problem: Problem = (context, value, message) => errors.push({ value, context, message });
    const bytes = Buffer.byteLength(JSON.stringify(u) ?? '');
    if (bytes > CONDITION_MAX_BYTES) return t.failure(u, c, `is ${bytes} bytes as JSON; at most ${CONDITION_MAX_BYTES}`);
    const comparisons = walk(u, c, 1, problem);
    if (errors.length === 0 && comparisons > CONDITION_MAX_COMPARISONS)
      problem(c, u, `holds ${comparisons} comparisons; at most ${CONDITION_MAX_COMPARISONS}`);
    return errors.length > 0 ? t.failures(errors) : t.success(u as Condition);
  },
  t.identity,
);
