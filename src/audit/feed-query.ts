import * as E from 'fp-ts/Either';
import type { Request } from 'express';
import { Checkpoint } from '../event-store/port';
import { FieldError } from '../kernel/field-errors';
import { oneQueryValue } from '../http/request';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../triggers/list-query';

/** A position as the feed writes it: a decimal integer, as a string (positions are 64-bit). */
export const POSITION = '^(0|[1-9][0-9]{0,19})$';
const POSITION_RE = new RegExp(POSITION);
/**
 * No store reaches it (a SQLite rowid is at most this; KurrentDB commit positions are log
 * offsets): a larger `after` is the same request, nothing follows it, and adapters can bind it.
 */
export const MAX_POSITION = 2n ** 63n - 1n;

export interface FeedQuery {
  readonly after: Checkpoint;
  readonly limit: number;
}

/** A position given by a client (`after`, `Last-Event-ID`), at most MAX_POSITION; undefined when it is not one. */
export const parsePosition = (text: string): bigint | undefined => {
  if (!POSITION_RE.test(text)) return undefined;
  const p = BigInt(text);
  return p <= MAX_POSITION ? p : MAX_POSITION;
};

/** `after` (a position, exclusive; absent: from the start) and, when `paged`, `limit`. */
export const parseFeedQuery = (query: Request['query'], paged: boolean): E.Either<FieldError[], FeedQuery> => {
  const errors: FieldError[] = [];
  const known = paged ? ['after', 'limit'] : ['after'];
  for (const name of Object.keys(query)) {
    if (!known.includes(name)) errors.push({ path: `query.${name}`, message: `is not a known parameter (${known.join(', ')})` });
  }
  const afterText = oneQueryValue(query, 'after', errors);
  const after = afterText === undefined ? 'start' : parsePosition(afterText);
  if (after === undefined)
    errors.push({ path: 'query.after', message: "must be a position: a whole number from 0, as a previous page's `next` gives it" });
  const limitText = paged ? oneQueryValue(query, 'limit', errors) : undefined;
  const limit = limitText === undefined ? DEFAULT_LIMIT : Number(limitText);
  if (limitText !== undefined && !(/^\d+$/.test(limitText) && limit >= 1 && limit <= MAX_LIMIT)) {
    errors.push({ path: 'query.limit', message: `must be a whole number from 1 to ${MAX_LIMIT}` });
  }
  return errors.length > 0 || after === undefined ? E.left(errors) : E.right({ after, limit });
};
