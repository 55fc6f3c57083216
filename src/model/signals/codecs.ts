import * as t from 'io-ts';
import { closed, checked, described } from '../../kernel/closed';
import { ContentTypePart, SignalName } from '../triggers/codecs';

export const SIGNAL_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
export const MAX_SIGNALS_PER_REQUEST = 500;

export const SignalId = checked(described(t.string, 'must be a string'), 'SignalId', (s) =>
  SIGNAL_ID.test(s) ? undefined : 'must be 1-128 characters of letters, digits, . _ : - (starting with a letter or digit)',
);
export const Instance = new t.Type<Record<string, unknown>, Record<string, unknown>, unknown>(
  'Instance',
  (u): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u),
  (u, c) =>
    typeof u === 'object' && u !== null && !Array.isArray(u)
      ? t.success(u as Record<string, unknown>)
      : t.failure(u, c, u === undefined ? 'is required' : "must be an object (the instance's attributes)"),
  t.identity,
);
/** RFC 3339 `date-time` (what JSON Schema's format means), any fraction, no leap second. */
export const TIMESTAMP =
  '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt]([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$';
const TIMESTAMP_RE = new RegExp(TIMESTAMP);
const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const daysIn = (year: number, month: number) => (month === 2 ? (isLeap(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31);
const isTimestamp = (s: string) => TIMESTAMP_RE.test(s) && Number(s.slice(8, 10)) <= daysIn(Number(s.slice(0, 4)), Number(s.slice(5, 7)));
export const Timestamp = checked(described(t.string, 'must be an RFC 3339 timestamp'), 'Timestamp', (s) =>
  isTimestamp(s) ? undefined : 'must be an RFC 3339 timestamp',
);

export const MAX_INSTANCE_KEY = 256;
/** Which instance a signal is about, for triggers that deliver in order per instance. */
export const InstanceKey = checked(described(t.string, 'must be a string'), 'InstanceKey', (s) =>
  s.length >= 1 && s.length <= MAX_INSTANCE_KEY ? undefined : `must be 1-${MAX_INSTANCE_KEY} characters`,
);

export const SignalInput = closed(
  'Signal',
  { signal: SignalName, app_label: ContentTypePart, model_name: ContentTypePart, instance: Instance },
  { id: SignalId, occurred_at: Timestamp, instance_key: InstanceKey },
);
export type SignalInput = t.TypeOf<typeof SignalInput>;

/** One signal or an array of them. */
export const SignalBatch = new t.Type<SignalInput[], SignalInput[], unknown>(
  'SignalBatch',
  (u): u is SignalInput[] => Array.isArray(u),
  (u, c) => {
    if (!Array.isArray(u)) {
      const one = SignalInput.validate(u, c);
      return one._tag === 'Right' ? t.success([one.right]) : one;
    }
    if (u.length === 0) return t.failure(u, c, 'must hold at least one signal');
    if (u.length > MAX_SIGNALS_PER_REQUEST) return t.failure(u, c, `at most ${MAX_SIGNALS_PER_REQUEST} signals per request`);
    return t.array(SignalInput).validate(u, c);
  },
  t.identity,
);
