import { MAX_SIGNAL_BYTES } from '../signals/prepare.ts';
import type { ClaimedRow } from './claim.ts';

/**
 * Why a claimed row can never be sent as it is, or undefined when it can. `emit` writes only
 * rows that can; these come from elsewhere (the table is plain SQL: a hand-made row, an older
 * writer): a signal with no id (sent without one, it would get a new id at every try), one over
 * the service's size limit, or a number JSON text carries but JavaScript cannot (PostgreSQL's
 * jsonb keeps `1e400` exactly; the service would read it as Infinity). Such a row is set aside
 * at once, naming the value, rather than refused at every try.
 */
export const unsendableReason = (row: ClaimedRow): string | undefined => {
  if (row.signalId === null) return "the row's signal has no id (written other than with emit?)";
  if (row.bytes > MAX_SIGNAL_BYTES)
    return `the row's signal is ${row.bytes} bytes as JSON; the service takes at most ${MAX_SIGNAL_BYTES} in one signal`;
  // jsonb writes numbers out in full, so one beyond a double has over 308 digits in a row.
  const where = LONG_DIGITS.test(row.json) ? outOfRange(JSON.parse(row.json), 'signal') : undefined;
  return where === undefined ? undefined : `the row's signal cannot be sent: ${where}`;
};

const LONG_DIGITS = /\d{309}/;

/** The path of the first number a double cannot hold (parsed as ±Infinity), and its value. */
const outOfRange = (value: unknown, path: string): string | undefined => {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `${path} is a number beyond what JSON parsers read (±1.8e308)`;
  if (typeof value !== 'object' || value === null) return undefined;
  const entries: Array<[string, unknown]> = Array.isArray(value)
    ? value.map((v, i) => [`[${i}]`, v])
    : Object.entries(value).map(([k, v]) => [`.${k}`, v]);
  for (const [step, item] of entries) {
    const found = outOfRange(item, `${path}${step}`);
    if (found !== undefined) return found;
  }
  return undefined;
};
