import { instantOf, isComparedTimestamp } from '../../kernel/timestamps';
import { Meter, spend } from './budget';

export type { Meter } from './budget';

/** An object's own keys, listed once per signal where the meter keeps them (each key one step). */
const keysOf = (o: object, meter: Meter | undefined): readonly string[] => {
  let keys = meter?.keys?.get(o);
  if (keys === undefined) {
    keys = Object.keys(o);
    meter?.keys?.set(o, keys);
    spend(meter, keys.length);
  }
  return keys;
};

const hasOwn = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/** The value at a path's segments (digits index arrays), or `missing`. Own properties only. */
export const lookup = (root: unknown, segments: readonly string[], meter?: Meter): { found: true; value: unknown } | { found: false } => {
  let at = root;
  for (const segment of segments) {
    spend(meter);
    if (Array.isArray(at) && /^(0|[1-9][0-9]*)$/.test(segment) && Number(segment) < at.length) at = at[Number(segment)];
    else if (typeof at === 'object' && at !== null && !Array.isArray(at) && hasOwn(at, segment))
      at = (at as Record<string, unknown>)[segment];
    else return { found: false };
  }
  return { found: true, value: at };
};

/** Deep JSON equality, one step per value compared and per key listed. */
export const equal = (a: unknown, b: unknown, meter?: Meter): boolean => {
  spend(meter);
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => equal(v, b[i], meter));
  const ka = keysOf(a, meter);
  const kb = keysOf(b, meter);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => hasOwn(b, k) && equal((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], meter));
};

/**
 * How a value orders against an operand: numbers by value, RFC 3339 timestamps as instants (a
 * leap second the last instant of its minute),
 * anything else not at all (undefined).
 */
export const compare = (value: unknown, operand: unknown): number | undefined => {
  if (typeof value === 'number' && typeof operand === 'number') return value - operand;
  if (typeof value !== 'string' || typeof operand !== 'string' || !isComparedTimestamp(value) || !isComparedTimestamp(operand))
    return undefined;
  const a = instantOf(value);
  const b = instantOf(operand);
  if (a.ms !== b.ms) return a.ms - b.ms;
  if (a.leap || b.leap) return Number(a.leap) - Number(b.leap);
  const width = Math.max(a.sub.length, b.sub.length);
  const [x, y] = [a.sub.padEnd(width, '0'), b.sub.padEnd(width, '0')];
  return x === y ? 0 : x < y ? -1 : 1;
};

/** A condition value as the detail quotes it: JSON, cut short. */
export const quote = (v: unknown): string => {
  const text = JSON.stringify(v) ?? 'undefined';
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
};
