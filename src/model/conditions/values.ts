import { instantOf, isTimestamp } from '../../kernel/timestamps';

/** Counts the steps one evaluation takes, so a test can show they stay linear. */
export interface Meter {
  steps: number;
}

const hasOwn = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/** The value at a path's segments (digits index arrays), or `missing`. Own properties only. */
export const lookup = (root: unknown, segments: readonly string[], meter?: Meter): { found: true; value: unknown } | { found: false } => {
  let at = root;
  for (const segment of segments) {
    if (meter) meter.steps++;
    if (Array.isArray(at) && /^(0|[1-9][0-9]*)$/.test(segment) && Number(segment) < at.length) at = at[Number(segment)];
    else if (typeof at === 'object' && at !== null && !Array.isArray(at) && hasOwn(at, segment))
      at = (at as Record<string, unknown>)[segment];
    else return { found: false };
  }
  return { found: true, value: at };
};

/** Deep JSON equality, counting one step per value compared. */
export const equal = (a: unknown, b: unknown, meter?: Meter): boolean => {
  if (meter) meter.steps++;
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => equal(v, b[i], meter));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => hasOwn(b, k) && equal((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], meter));
};

/**
 * How a value orders against an operand: numbers by value, RFC 3339 timestamps as instants,
 * anything else not at all (undefined).
 */
export const compare = (value: unknown, operand: unknown): number | undefined => {
  if (typeof value === 'number' && typeof operand === 'number') return value - operand;
  if (typeof value !== 'string' || typeof operand !== 'string' || !isTimestamp(value) || !isTimestamp(operand)) return undefined;
  const a = instantOf(value);
  const b = instantOf(operand);
  if (a.ms !== b.ms) return a.ms - b.ms;
  const width = Math.max(a.sub.length, b.sub.length);
  const [x, y] = [a.sub.padEnd(width, '0'), b.sub.padEnd(width, '0')];
  return x === y ? 0 : x < y ? -1 : 1;
};

/** A condition value as the detail quotes it: JSON, cut short. */
export const quote = (v: unknown): string => {
  const text = JSON.stringify(v) ?? 'undefined';
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
};
