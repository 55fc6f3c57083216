import * as t from 'io-ts';
import { stringMap } from '../../kernel/closed';

/** RFC 9110 `token`: what HTTP allows as a field name. */
export const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** What HTTP clients (undici, Node) allow in a field value: tab, visible ASCII, Latin-1; no CR, LF, NUL. */
const BAD_VALUE_CHAR = /[^\t\x20-\x7e\x80-\xff]/;
/** The same rule as a whole-value pattern (the OpenAPI document states it). */
export const HEADER_VALUE = '^[\\t\\x20-\\x7e\\x80-\\xff]*$';

/** Hop-by-hop and framing fields: the HTTP client owns them; a user's value would corrupt the request. */
export const CLIENT_OWNED = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'upgrade',
  'expect',
  'te',
  'keep-alive',
  'trailer',
  'http2-settings',
]);
/** Standard Webhooks fields the service sets for every delivery; a user's would be dropped silently. */
export const SERVICE_OWNED = new Set(['webhook-id', 'webhook-timestamp', 'webhook-signature']);

/** Why a header name cannot be sent, or undefined. */
export const headerNameProblem = (name: string): string | undefined => {
  const lower = name.toLowerCase();
  if (!TOKEN.test(name)) return "is not a valid header name (letters, digits and !#$%&'*+-.^_`|~ only)";
  if (CLIENT_OWNED.has(lower) || lower.startsWith('proxy-')) return 'is set by the HTTP client and cannot be given';
  return undefined;
};

/** Why a header value cannot be sent, or undefined; it never quotes the value (values may be secrets). */
export const headerValueProblem = (value: string): string | undefined =>
  BAD_VALUE_CHAR.test(value) ? 'must not contain control characters (CR, LF, NUL …) or characters beyond Latin-1' : undefined;

/**
 * The first problem with rendered headers, naming the header but not its value: a value from
 * the instance or a dynamic value can become invalid only after rendering.
 */
export const renderedHeadersProblem = (headers: Record<string, string>): string | undefined => {
  for (const [name, value] of Object.entries(headers)) {
    const problem = headerNameProblem(name) ?? headerValueProblem(value);
    if (problem) return `header ${JSON.stringify(name)} ${problem}`;
  }
  return undefined;
};

/** A webhook's `headers`: strings whose templates `checkValue` accepts and that HTTP can carry. */
export const headerMap = (checkValue: (v: string) => string | undefined) => {
  const base = stringMap(checkValue);
  return new t.Type<Record<string, string>, Record<string, string>, unknown>(
    'Headers',
    base.is,
    (u, c) => {
      const result = base.validate(u, c);
      if (result._tag === 'Left') return result;
      const errors: t.ValidationError[] = [];
      const seen = new Set<string>();
      for (const [name, value] of Object.entries(result.right)) {
        const lower = name.toLowerCase();
        const message =
          headerNameProblem(name) ??
          (SERVICE_OWNED.has(lower) ? 'is set by the service for every delivery and cannot be given' : undefined) ??
          (seen.has(lower) ? 'repeats a header name (names are case-insensitive)' : undefined) ??
          headerValueProblem(value);
        seen.add(lower);
        if (message) errors.push({ value, context: t.appendContext(c, name, t.string, value), message });
      }
      return errors.length > 0 ? t.failures(errors) : result;
    },
    t.identity,
  );
};
