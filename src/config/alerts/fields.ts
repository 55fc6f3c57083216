/** The field codecs the `alerts` section is built of: each names what it wants in its message. */
import * as t from 'io-ts';
import addressparser from 'nodemailer/lib/addressparser';
import { arrayOf, checked, described } from '../../kernel/closed';
import { closestName } from '../../kernel/closest-name';
import { ALERT_TYPES, AlertType } from '../../model/alerts/alert';

export const aString = described(t.string, 'must be a string');
export const aBoolean = described(t.boolean, 'must be true or false');

/** A whole number from `min` (to `max`, when given). */
export const wholeFrom = (name: string, min: number, max?: number) =>
  checked(described(t.number, 'must be a number'), name, (n) => {
    if (Number.isInteger(n) && n >= min && (max === undefined || n <= max)) return undefined;
    return max === undefined ? `must be a whole number of at least ${min}` : `must be a whole number from ${min} to ${max}`;
  });

/** An absolute http(s) URL with a host, no spaces and no credentials (a sink's URL may carry its secret in the path, never in userinfo). */
export const HttpUrl = checked(aString, 'HttpUrl', (s) => {
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    return 'must be an absolute http(s) URL';
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '' || /\s/.test(s))
    return 'must be an absolute http(s) URL';
  return url.username === '' && url.password === '' ? undefined : 'must not contain credentials';
});

const SINK_NAME = /^[a-z0-9_-]{1,64}$/;
/** As limit names are: it shows in logs and in the feed of what each sink was sent. */
export const SinkName = checked(aString, 'SinkName', (s) => (SINK_NAME.test(s) ? undefined : 'must be 1 to 64 of a-z, 0-9, _ and -'));

const AlertTypeName = new t.Type<AlertType, AlertType, unknown>(
  'AlertType',
  (u): u is AlertType => ALERT_TYPES.includes(u as AlertType),
  (u, c) => {
    if (ALERT_TYPES.includes(u as AlertType)) return t.success(u as AlertType);
    const near = typeof u === 'string' ? closestName(u, ALERT_TYPES) : undefined;
    return t.failure(u, c, near ? `is not an alert type; did you mean ${near}?` : `must be one of ${ALERT_TYPES.join(', ')}`);
  },
  t.identity,
);

/** Left out: every type. Empty would send nothing: leave the sink out instead. */
export const AlertTypes = arrayOf(AlertTypeName, 1);

/** One mailbox, `alerts@example.com` or `Name <alerts@example.com>`, as the SMTP envelope takes it. */
export const Mailbox = checked(aString, 'Mailbox', (s) => {
  const parsed = addressparser(s);
  const one = parsed.length === 1 ? parsed[0] : undefined;
  return one?.address !== undefined && /^[^\s@<>]+@[^\s@<>]+$/.test(one.address)
    ? undefined
    : 'must be one email address, e.g. alerts@example.com or "action-triggers <alerts@example.com>"';
});
