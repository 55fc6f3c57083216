import { compare, equal, lookup, quote } from './values';
import { conditionMeter, Meter, signalBudget, spend, TOO_COSTLY, TooCostly } from './budget';
import { Condition, ConditionResult, ConditionSubject, isPlainObject, NO_PREVIOUS, NOT, ORDER_OPERATORS } from './syntax';

const HELD: ConditionResult = { held: true };
const fails = (clause: string, detail: string): ConditionResult => ({ held: false, clause, detail });

/** Runs one clause's evaluation; a budget that runs out inside it names the innermost clause. */
const within = (at: string, run: () => ConditionResult): ConditionResult => {
  try {
    return run();
  } catch (e) {
    if (e instanceof TooCostly) e.clause ??= at;
    throw e;
  }
};

/** Evaluates one object of a condition: every key must hold; the first that does not is the answer. */
const node = (cond: unknown, subject: ConditionSubject, at: string, meter: Meter): ConditionResult => {
  if (!isPlainObject(cond)) return fails(at, 'is not a condition this build reads');
  for (const [key, value] of Object.entries(cond)) {
    const here = `${at}.${key}`;
    const result = within(here, () => {
      spend(meter);
      return key.startsWith('$') ? logical(key, value, subject, here, meter) : field(key, value, subject, here, meter);
    });
    if (!result.held) return result;
  }
  return HELD;
};

const logical = (op: string, value: unknown, subject: ConditionSubject, at: string, meter: Meter): ConditionResult => {
  if (!Array.isArray(value)) return fails(at, 'is not a condition this build reads');
  if (op === '$and') {
    for (let i = 0; i < value.length; i++) {
      const result = node(value[i], subject, `${at}[${i}]`, meter);
      if (!result.held) return result;
    }
    return HELD;
  }
  if (op === '$or') {
    const any = value.some((c, i) => node(c, subject, `${at}[${i}]`, meter).held);
    return any ? HELD : fails(at, `none of its ${value.length} conditions held`);
  }
  if (op === '$nor') {
    const held = value.findIndex((c, i) => node(c, subject, `${at}[${i}]`, meter).held);
    return held < 0 ? HELD : fails(`${at}[${held}]`, 'held, and $nor wants none to');
  }
  return fails(at, `${op} is not an operator this build reads`);
};

/** The value a path names, or why there is none. */
const resolve = (path: string, subject: ConditionSubject, meter: Meter) => {
  const [root, ...segments] = path.split('.');
  if (root === 'previous' && subject.previous === undefined) return { why: NO_PREVIOUS } as const;
  const base =
    root === 'instance' ? subject.instance : root === 'previous' ? subject.previous : root === 'signal' ? subject.signal : undefined;
  if (base === undefined || segments.length === 0) return { found: false, segments } as const;
  return { ...lookup(base, segments, meter), segments } as const;
};

type Found = { found: true; value: unknown } | { found: false };
type FoundAt = Found & { segments: readonly string[] };

const field = (path: string, spec: unknown, subject: ConditionSubject, at: string, meter: Meter): ConditionResult => {
  // An object is operators (check.ts refused any other); anything else is compared with $eq.
  const ops = isPlainObject(spec) ? spec : { $eq: spec };
  const found = resolve(path, subject, meter);
  if ('why' in found) return fails(at, found.why!);
  const failing = firstFailing(path, ops, found, subject, meter);
  if (failing === undefined) return HELD;
  return fails(isPlainObject(spec) ? `${at}.${failing[0]}` : at, failing[1]);
};

/** The first of a path's operators that does not hold and why, or undefined when all hold. */
const firstFailing = (
  path: string,
  ops: Record<string, unknown>,
  found: FoundAt,
  subject: ConditionSubject,
  meter: Meter,
): [string, string] | undefined => {
  for (const [op, operand] of Object.entries(ops)) {
    spend(meter);
    const detail =
      op === '$changed'
        ? changed(path, found.segments, found, operand, subject, meter)
        : op === NOT
          ? negated(path, operand, found, subject, meter)
          : test(path, op, operand, found, meter);
    if (detail !== undefined) return [op, detail];
  }
  return undefined;
};

/** `$not` holds where its operators do not all hold, as in MongoDB (an absent path included). */
const negated = (path: string, operand: unknown, found: FoundAt, subject: ConditionSubject, meter: Meter) => {
  if (!isPlainObject(operand)) return `${NOT} is not a condition this build reads`;
  return firstFailing(path, operand, found, subject, meter) === undefined
    ? `${path} matches ${quote(operand)}, which ${NOT} refuses`
    : undefined;
};

/** Why one operator does not hold of a value, or undefined when it does. */
const test = (path: string, op: string, operand: unknown, at: Found, meter: Meter): string | undefined => {
  if (op === '$exists') return at.found === operand ? undefined : `${path} is ${at.found ? 'present' : 'absent'}`;
  if (!at.found) return `${path} is absent`;
  const v = at.value;
  switch (op) {
    case '$eq':
      return equal(v, operand, meter) ? undefined : `${path} is not ${quote(operand)}`;
    case '$ne':
      return equal(v, operand, meter) ? `${path} is ${quote(operand)}` : undefined;
    case '$in':
      return Array.isArray(operand) && operand.some((o) => equal(v, o, meter)) ? undefined : `${path} is none of ${quote(operand)}`;
    case '$nin':
      return Array.isArray(operand) && !operand.some((o) => equal(v, o, meter)) ? undefined : `${path} is one of ${quote(operand)}`;
    default:
      return ORDER_OPERATORS.has(op) ? order(path, op, v, operand) : `${op} is not an operator this build reads`;
  }
};

const SYMBOLS: Readonly<Record<string, [string, (d: number) => boolean]>> = {
  $gt: ['>', (d) => d > 0],
  $gte: ['>=', (d) => d >= 0],
  $lt: ['<', (d) => d < 0],
  $lte: ['<=', (d) => d <= 0],
};

const order = (path: string, op: string, value: unknown, operand: unknown): string | undefined => {
  const [symbol, holds] = SYMBOLS[op]!;
  const d = compare(value, operand);
  if (d === undefined) return `${path} is not a ${typeof operand === 'number' ? 'number' : 'timestamp'} to compare with ${quote(operand)}`;
  return holds(d) ? undefined : `${path} is not ${symbol} ${quote(operand)}`;
};

/** `$changed` compares the path in `instance` with the same path in `previous`; absent counts as a value. */
const changed = (path: string, segments: readonly string[], now: Found, operand: unknown, subject: ConditionSubject, meter: Meter) => {
  if (subject.previous === undefined) return NO_PREVIOUS;
  const before = lookup(subject.previous, segments, meter);
  const same = before.found ? now.found && equal(before.value, now.value, meter) : !now.found;
  // Most often a misspelled field: say so, as $eq says "is absent".
  if (!before.found && !now.found && operand !== false) return `${path} is absent from both the instance and previous`;
  if (operand === true) return same ? `${path} did not change` : undefined;
  if (operand === false) return same ? undefined : `${path} changed`;
  const ends = isPlainObject(operand) ? operand : {};
  const is = (side: Found, key: 'from' | 'to') => !(key in ends) || (side.found && equal(side.value, ends[key], meter));
  if (!same && is(before, 'from') && is(now, 'to')) return undefined;
  const named = (['from', 'to'] as const).filter((k) => k in ends).map((k) => `${k} ${quote(ends[k])}`);
  return [`${path} did not change`, ...named].join(' ');
};

/**
 * Where a condition reads the state before the change (a `previous.` path or `$changed`), or
 * undefined. Without that state the whole condition is false, also under `$nor`: a transition
 * never fires for a signal that cannot show one.
 */
const previousRead = (cond: unknown, at: string, meter: Meter): string | undefined => {
  if (!isPlainObject(cond)) return undefined;
  for (const [key, value] of Object.entries(cond)) {
    spend(meter);
    if (Array.isArray(value) && key.startsWith('$')) {
      for (let i = 0; i < value.length; i++) {
        const found = previousRead(value[i], `${at}.${key}[${i}]`, meter);
        if (found) return found;
      }
    } else if (key.startsWith('previous.')) return `${at}.${key}`;
    else if (isPlainObject(value)) {
      const where = changedIn(value);
      if (where) return `${at}.${key}.${where}`;
    }
  }
  return undefined;
};

/** Where a path's operators use `$changed`, also under `$not`. */
const changedIn = (ops: Record<string, unknown>): string | undefined => {
  if (Object.hasOwn(ops, '$changed')) return '$changed';
  const negatedOps = Object.hasOwn(ops, NOT) ? ops[NOT] : undefined;
  return isPlainObject(negatedOps) && Object.hasOwn(negatedOps, '$changed') ? `${NOT}.$changed` : undefined;
};

/**
 * Whether a condition holds of a signal. Never throws: a stored condition this build cannot
 * read, a missing path, a type mismatch or a condition past its budget of steps (budget.ts) is
 * false, with the clause and the reason.
 */
export const evaluateCondition = (
  condition: Condition,
  subject: ConditionSubject,
  meter: Meter = conditionMeter(signalBudget()),
): ConditionResult => {
  try {
    const needsPrevious = subject.previous === undefined ? previousRead(condition, 'condition', meter) : undefined;
    if (needsPrevious) return fails(needsPrevious, NO_PREVIOUS);
    return node(condition, subject, 'condition', meter);
  } catch (e) {
    if (e instanceof TooCostly) return fails(e.clause ?? 'condition', TOO_COSTLY);
    return fails('condition', `could not be evaluated (${e instanceof Error ? e.name : 'error'})`);
  }
};
