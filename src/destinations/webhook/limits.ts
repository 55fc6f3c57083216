/**
 * `webhook_limits`: limits per receiver, each over the webhook URLs that start with its
 * `url_prefix`, shared by every trigger that sends there.
 */
import * as t from 'io-ts';
import { arrayOf, checked, closed, described } from '../../kernel/closed';
import { pathOf } from '../../kernel/field-errors';
import type { Pace, PaceLimit } from '../../dispatch/pacing';
import { ConfiguredLimit, limitFields, limitRules, paceKey, paceLimitFrom, paceNameIn } from '../port/limits';

const MAX_NAME_LENGTH = 64;
const aString = described(t.string, 'must be a string');

const LIMIT_NAME = new RegExp(`^[a-z0-9_-]{1,${MAX_NAME_LENGTH}}$`);
const LimitName = checked(aString, 'LimitName', (s) =>
  LIMIT_NAME.test(s) ? undefined : `must be 1 to ${MAX_NAME_LENGTH} of a-z, 0-9, _ and -`,
);

/** Scheme and host, as far as the first `/`, `?` or `#`. */
const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;

const parsedUrl = (s: string): URL | undefined => {
  try {
    return new URL(s);
  } catch {
    return undefined;
  }
};

const UrlPrefix = checked(aString, 'UrlPrefix', (s) => {
  const url = parsedUrl(s);
  const fits = /^https?:\/\/[^\s/?#]/i.test(s) && !/\s/.test(s) && (url?.protocol === 'http:' || url?.protocol === 'https:');
  if (!url || !fits) return 'must be an http(s) URL prefix with scheme and host (e.g. https://api.example.com/)';
  // A webhook URL never holds credentials, so a prefix with them would match nothing.
  return url.username === '' && url.password === '' ? undefined : 'must not contain credentials';
});

/** A URL or prefix with its scheme and host in lower case: they match in any case, the rest as written. */
const foldedOrigin = (s: string) => s.replace(ORIGIN, (origin) => origin.toLowerCase());

const WebhookLimit = limitRules(closed('WebhookLimit', { name: LimitName, url_prefix: UrlPrefix }, limitFields));
type WebhookLimit = t.TypeOf<typeof WebhookLimit>;

/** Each entry of the list whose `field` repeats an earlier entry's, named at the repeat. */
const repeats = (items: unknown[], c: t.Context, field: 'name' | 'url_prefix', fold: (s: string) => string) => {
  const first = new Map<string, number>();
  const errors: t.ValidationError[] = [];
  items.forEach((item, i) => {
    const own = typeof item === 'object' && item !== null && Object.prototype.hasOwnProperty.call(item, field);
    const value = own ? (item as Record<string, unknown>)[field] : undefined;
    if (typeof value !== 'string') return;
    const seen = first.get(fold(value));
    if (seen === undefined) first.set(fold(value), i);
    else {
      const context = t.appendContext(t.appendContext(c, String(i), WebhookLimit, item), field, t.string, value);
      errors.push({ value, context, message: `repeats the ${field} of ${pathOf(c)}[${seen}]` });
    }
  });
  return errors;
};

/** `webhook_limits`: each entry checked, and no name or prefix twice (every problem named at once). */
export const WebhookLimits = new t.Type<WebhookLimit[], WebhookLimit[], unknown>(
  'WebhookLimits',
  (u): u is WebhookLimit[] => Array.isArray(u),
  (u, c) => {
    const result = arrayOf(WebhookLimit).validate(u, c);
    if (!Array.isArray(u)) return result;
    const errors = [
      ...(result._tag === 'Left' ? result.left : []),
      ...repeats(u, c, 'name', String),
      ...repeats(u, c, 'url_prefix', foldedOrigin),
    ];
    return errors.length > 0 ? t.failures(errors) : result;
  },
  t.identity,
);

/** One limit as the kind keeps it: its prefix folded, for matching. */
interface PrefixLimit {
  readonly name: string;
  readonly prefix: string;
  /** The prefix as the config writes it, to show. */
  readonly urlPrefix: string;
  readonly limit: PaceLimit;
}

/** `webhook_limits`, the longest prefix first: the first entry a URL starts with is the one that applies. */
export type WebhookLimitList = readonly PrefixLimit[];

export const webhookLimitListOf = (entries: readonly WebhookLimit[]): WebhookLimitList =>
  entries
    .map((e) => ({ name: e.name, prefix: foldedOrigin(e.url_prefix), urlPrefix: e.url_prefix, limit: paceLimitFrom(e) }))
    .sort((a, b) => b.prefix.length - a.prefix.length);

/**
 * Whether a URL starts with a prefix; a prefix of scheme and host alone covers that host only
 * (not `https://api.example.com.evil.org/` nor another port).
 */
const startsWithin = (url: string, prefix: string) =>
  url.startsWith(prefix) && (prefix.length > (ORIGIN.exec(prefix)?.[0].length ?? 0) || /^([/?#]|$)/.test(url.slice(prefix.length)));

/** The limit over a webhook URL as the trigger wrote it: the entry with the longest matching prefix. */
export const webhookPaceOf = (limits: WebhookLimitList, url: string): Pace | undefined => {
  // Every action of every signal is planned through here: no limits, no work.
  if (limits.length === 0) return undefined;
  const folded = foldedOrigin(url);
  const found = limits.find((l) => startsWithin(folded, l.prefix));
  return found && { key: paceKey('webhook', found.name), ...found.limit };
};

/** The limit of a `webhook:<name>` key now; undefined once no entry has that name. */
export const webhookPaceLimitOf = (limits: WebhookLimitList, key: string): PaceLimit | undefined => {
  const name = paceNameIn('webhook', key);
  return limits.find((l) => l.name === name)?.limit;
};

/** Every `webhook_limits` entry, by name, with the prefix it covers. */
export const webhookLimitsListed = (limits: WebhookLimitList): ConfiguredLimit[] =>
  limits.map((l) => ({ key: paceKey('webhook', l.name), limit: l.limit, matches: l.urlPrefix })).sort((a, b) => a.key.localeCompare(b.key));
