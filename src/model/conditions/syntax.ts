import type { JsonValue } from '../../kernel/json-value';

/**
 * The words of a trigger condition: MongoDB's query operators over dotted paths into a signal,
 * plus `$changed` for transitions. The field operators are rows of operators.ts;
 * docs/conditions.md is the user's description.
 */

/** What a path may start with: the instance, its state before the change, or the signal itself. */
export const ROOTS = ['instance', 'previous', 'signal'] as const;
export type Root = (typeof ROOTS)[number];
/** The fields of a signal a `signal.` path may read. */
export const SIGNAL_FIELDS = ['id', 'signal', 'app_label', 'model_name', 'occurred_at', 'instance_key'] as const;

/** MongoDB's logical operators, each over a list of conditions: all, at least one, none hold. */
export const LOGICAL = ['$and', '$or', '$nor'] as const;

/** Spellings people bring from elsewhere, refused with the one meant. */
export const OTHER_SPELLINGS: Readonly<Record<string, string>> = { $neq: '$ne', $exist: '$exists', $notin: '$nin' };

/** A condition as stored: a JSON object, checked when the trigger was written (check.ts). */
export type Condition = { [key: string]: JsonValue };

/** What a condition is evaluated over. */
export interface ConditionSubject {
  instance: Record<string, unknown>;
  previous?: Record<string, unknown>;
  signal: Record<string, unknown>;
}

/** A condition's outcome: held, or the first clause that did not and why (quoting only the condition's values). */
export type ConditionResult = { held: true } | { held: false; clause: string; detail: string };

export const NO_PREVIOUS = 'the signal has no previous state';

export const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
