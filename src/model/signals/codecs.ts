import * as t from 'io-ts';
import { closed, checked, described } from '../../kernel/closed';
import { ContentTypePart, SignalName } from '../triggers/codecs';
import { isTimestamp } from '../../kernel/timestamps';
import { MAX_ACTIONS_PER_DISPATCH } from '../../kernel/limits';

export { TIMESTAMP } from '../../kernel/timestamps';

export const SIGNAL_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
export const MAX_SIGNALS_PER_REQUEST = 500;

const DeliveryId = described(t.string, 'must be a delivery id (a string)');
/**
 * A list of a signal's delivery ids, as the redeliver and cancel bodies take it (`leftOut`: what
 * the list means when absent). Each bad item named by its index; the list itself when it is not
 * one, empty or too long.
 */
export const deliveryIds = (leftOut: string) =>
  new t.Type<string[], string[], unknown>(
    'DeliveryIds',
    (u): u is string[] => Array.isArray(u),
    (u, c) => {
      if (!Array.isArray(u)) return t.failure(u, c, 'must be an array of delivery ids');
      if (u.length === 0) return t.failure(u, c, `must name at least one delivery id (or leave it out for ${leftOut})`);
      if (u.length > MAX_ACTIONS_PER_DISPATCH) return t.failure(u, c, `at most ${MAX_ACTIONS_PER_DISPATCH} delivery ids`);
      return t.array(DeliveryId).validate(u, c);
    },
    t.identity,
  );

export const SignalId = checked(described(t.string, 'must be a string'), 'SignalId', (s) =>
  SIGNAL_ID.test(s) ? undefined : 'must be 1-128 characters of letters, digits, . _ : - (starting with a letter or digit)',
);
const isAttributes = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u);
/** An object of an instance's attributes; `what` says which in the error. */
const attributes = (name: string, what: string) =>
  new t.Type<Record<string, unknown>, Record<string, unknown>, unknown>(
    name,
    isAttributes,
    (u, c) => (isAttributes(u) ? t.success(u) : t.failure(u, c, u === undefined ? 'is required' : `must be an object (${what})`)),
    t.identity,
  );
export const Instance = attributes('Instance', "the instance's attributes");
/** The instance's state before the change (same shape as `instance`); what `$changed` compares with. */
export const Previous = attributes('Previous', "the instance's attributes before the change");
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
  { id: SignalId, occurred_at: Timestamp, instance_key: InstanceKey, previous: Previous },
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
