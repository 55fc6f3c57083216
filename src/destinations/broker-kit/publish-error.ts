/**
 * Why a publish failed, in our words. A broker's (or whatever answered in its place) error text
 * is never passed on: it may quote a rendered value, or be the answer of a host a trigger
 * pointed the worker at, and `last_error` is read by every key with `signals:read`. What is
 * kept is what the client decided on its side: a socket error code here, and what each
 * publisher's `describeError` reads from its client's errors (a reply code turned into a name
 * by its own table, an HTTP status, a client's own error type).
 */

/** An error whose message we wrote (a time-out, a refusal): shown as it is. */
export class PublishFailure extends Error {}

/** What a publisher's `describeError` is given: the error's fields, none trusted. */
export interface ErrorShape {
  name?: unknown;
  code?: unknown;
  type?: unknown;
  message?: unknown;
  cause?: unknown;
  details?: unknown;
  $metadata?: { httpStatusCode?: unknown };
  $fault?: unknown;
}

/** A word of letters, digits and `_`/`.`, short: a code, never a sentence someone wrote. */
const TOKEN = /^[A-Za-z][A-Za-z0-9_.]{0,47}$/;
export const token = (v: unknown): string | undefined => (typeof v === 'string' && TOKEN.test(v) ? v : undefined);

/** The reason for an attempt's `last_error`: ours, whatever the error holds. */
export const describePublishError = (e: unknown, describe?: (e: ErrorShape) => string | undefined, source = 'the broker'): string => {
  if (e === null || typeof e !== 'object') return `${source} failed`;
  if (e instanceof PublishFailure) return e.message;
  const shape = e as ErrorShape;
  const own = describe?.(shape);
  if (own) return `${source} ${own}`;
  // A socket or DNS error: Node's code (ECONNREFUSED, ENOTFOUND, ...).
  if (typeof shape.code === 'string' && /^E[A-Z0-9_]{2,30}$/.test(shape.code)) return `connection to ${source} failed (${shape.code})`;
  return `${source} failed (${token(shape.name) ?? 'error'}, details not shown)`;
};
