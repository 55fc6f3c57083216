/** `$changed`: a transition, the path in `instance` against the same path in `previous`. */
import type { Found, Reading } from './operator-row';
import { isPlainObject, NO_PREVIOUS } from './syntax';
import { equal, lookup, quote } from './values';

export const changedOperandProblem = (operand: unknown): string | undefined => {
  if (typeof operand === 'boolean') return undefined;
  if (!isPlainObject(operand) || Object.keys(operand).length === 0) return 'must be true, false or {"from": …, "to": …}';
  const other = Object.keys(operand).find((k) => k !== 'from' && k !== 'to');
  return other === undefined ? undefined : `takes only from and to, not ${other}`;
};

/** Why the transition did not happen, or undefined when it did; absent counts as a value. */
export const changed = (operand: unknown, { path, found: now, subject, meter }: Reading): string | undefined => {
  if (subject.previous === undefined) return NO_PREVIOUS;
  const before = lookup(subject.previous, now.segments, meter);
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
