import { lookup } from './values';
import { conditionMeter, Meter, signalBudget, spend, TOO_COSTLY, TooCostly } from './budget';
import { onValue, type FoundAt, type Reading } from './operator-row';
import { operatorNamed, OPERATORS } from './operators';
import { Condition, ConditionResult, ConditionSubject, isPlainObject, NO_PREVIOUS } from './syntax';

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

const field = (path: string, spec: unknown, subject: ConditionSubject, at: string, meter: Meter): ConditionResult => {
  // An object is operators (check.ts refused any other); anything else is compared with $eq.
  const ops = isPlainObject(spec) ? spec : { $eq: spec };
  const found = resolve(path, subject, meter);
  if ('why' in found) return fails(at, found.why!);
  const failing = firstFailing(ops, readingOf(path, found, subject, meter));
  if (failing === undefined) return HELD;
  return fails(isPlainObject(spec) ? `${at}.${failing[0]}` : at, failing[1]);
};

/** An operator this build does not read (a condition not checked): false, as is an absent path. */
const unknownOperator = (op: string) => onValue(() => `${op} is not an operator this build reads`);

/** The first of a path's operators that does not hold and why, or undefined when all hold. */
const firstFailing = (ops: Record<string, unknown>, reading: Reading): readonly [string, string] | undefined => {
  for (const [op, operand] of Object.entries(ops)) {
    spend(reading.meter);
    const detail = (operatorNamed(op)?.fails ?? unknownOperator(op))(operand, reading);
    if (detail !== undefined) return [op, detail];
  }
  return undefined;
};

const readingOf = (path: string, found: FoundAt, subject: ConditionSubject, meter: Meter): Reading => {
  const reading: Reading = { path, found, subject, meter, firstFailing: (ops) => firstFailing(ops, reading) };
  return reading;
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
      const where = previousIn(value);
      if (where) return `${at}.${key}.${where}`;
    }
  }
  return undefined;
};

const READS_PREVIOUS = OPERATORS.filter((row) => row.comparesWithPrevious).map((row) => row.name);
const NESTING = OPERATORS.filter((row) => row.nests).map((row) => row.name);
const readsPrevious = (ops: Record<string, unknown>) => READS_PREVIOUS.find((name) => Object.hasOwn(ops, name));

/** Where a path's operators compare with previous (`$changed`), also under a nesting one (`$not`). */
const previousIn = (ops: Record<string, unknown>): string | undefined => {
  const here = readsPrevious(ops);
  if (here) return here;
  for (const nesting of NESTING) {
    const inner = Object.hasOwn(ops, nesting) ? ops[nesting] : undefined;
    const there = isPlainObject(inner) ? readsPrevious(inner) : undefined;
    if (there) return `${nesting}.${there}`;
  }
  return undefined;
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
