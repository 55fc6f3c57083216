import type { Schema } from '../../kernel/openapi';
import type { Meter } from './budget';
import type { ConditionSubject } from './syntax';

/** A path's value in the signal, or that it has none. */
export type Found = { found: true; value: unknown } | { found: false };
/** …with the segments it was read by (what `$changed` reads again in `previous`). */
export type FoundAt = Found & { segments: readonly string[] };

/** What an operator's evaluation reads: its path, the path's value, the signal and the meter to spend. */
export interface Reading {
  readonly path: string;
  readonly found: FoundAt;
  readonly subject: ConditionSubject;
  readonly meter: Meter;
  /** The first of `ops` (more operators of the same path) that does not hold, and why. */
  readonly firstFailing: (ops: Record<string, unknown>) => readonly [string, string] | undefined;
}

/**
 * One field operator, all that is said of it in one place: check.ts, evaluate.ts and schemas.ts
 * read these rows (operators.ts) and name no operator themselves.
 */
export interface OperatorRow {
  readonly name: `$${string}`;
  /** Its line in docs/conditions.md's operator table: when it holds. */
  readonly doc: string;
  /** Why an operand is not one it takes, or undefined; `within` is the nesting operator it is under. */
  readonly operandProblem: (operand: unknown, within: string | undefined) => string | undefined;
  /** Why it does not hold (the false condition's detail), or undefined when it holds. */
  readonly fails: (operand: unknown, reading: Reading) => string | undefined;
  /** Its operand's schema; `nested` is the schema of the operators a nesting operator holds. */
  readonly schema: (nested: Schema) => Schema;
  /** Its operand is more operators of the same path, one level deep (no nesting operator inside). */
  readonly nests?: true;
  /** It compares `instance` with `previous`: on `instance.` paths only; `takes` is its operand in brief. */
  readonly comparesWithPrevious?: { readonly takes: string };
  /** What its refusal adds where it is written in place of $and, $or or $nor. */
  readonly misplaced?: string;
}

/** An operator over the path's value: a path the signal lacks makes it false. */
export const onValue =
  (holds: (value: unknown, operand: unknown, reading: Reading) => string | undefined) =>
  (operand: unknown, reading: Reading): string | undefined =>
    reading.found.found ? holds(reading.found.value, operand, reading) : `${reading.path} is absent`;
