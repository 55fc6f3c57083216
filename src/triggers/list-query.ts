import * as E from 'fp-ts/Either';
import type { Request } from 'express';
import { ListFilter } from '../projections/read-model';
import { FieldError } from '../kernel/field-errors';
import { oneQueryValue } from '../http/request';
import { ContentTypePart, SIGNALS, SignalName } from '../model/triggers/codecs';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;
/**
 * A cursor is a position in the list (base64url of the last id seen); any well-formed one is
 * a valid position, so a hand-made cursor just starts the page elsewhere.
 */
export const CURSOR = '^[A-Za-z0-9_-]{1,512}$';
const CURSOR_RE = new RegExp(CURSOR);
const KNOWN = new Set(['active', 'signal', 'app_label', 'model_name', 'q', 'limit', 'cursor']);
export const MAX_Q_LENGTH = 200;

export interface ListQuery {
  filter: ListFilter;
  limit: number;
  after: string | undefined;
}

export const encodeCursor = (id: string) => Buffer.from(id, 'utf8').toString('base64url');
const decodeCursor = (cursor: string) => Buffer.from(cursor, 'base64url').toString('utf8');

/** Validates the list's query string; every bad parameter is named. */
export const parseListQuery = (query: Request['query']): E.Either<FieldError[], ListQuery> => {
  const errors: FieldError[] = [];
  for (const name of Object.keys(query)) {
    if (!KNOWN.has(name)) errors.push({ path: `query.${name}`, message: `is not a known parameter (${[...KNOWN].join(', ')})` });
  }
  const filter: { -readonly [K in keyof ListFilter]: ListFilter[K] } = {};
  const active = oneQueryValue(query, 'active', errors);
  if (active !== undefined) {
    if (active === 'true' || active === 'false') filter.active = active === 'true';
    else errors.push({ path: 'query.active', message: 'must be true or false' });
  }
  const signal = oneQueryValue(query, 'signal', errors);
  if (signal !== undefined) {
    if (SIGNALS.includes(signal as SignalName)) filter.signal = signal;
    else errors.push({ path: 'query.signal', message: `must be one of ${SIGNALS.join(', ')}` });
  }
  for (const name of ['app_label', 'model_name'] as const) {
    const v = oneQueryValue(query, name, errors);
    const decoded = v === undefined ? undefined : ContentTypePart.decode(v);
    if (decoded?._tag === 'Right') filter[name] = decoded.right;
    else if (decoded?._tag === 'Left') errors.push({ path: `query.${name}`, message: decoded.left[0]?.message ?? 'is not valid' });
  }
  const q = oneQueryValue(query, 'q', errors);
  if (q !== undefined) {
    if (q.length >= 1 && q.length <= MAX_Q_LENGTH) filter.q = q.toLowerCase();
    else errors.push({ path: 'query.q', message: `must be 1 to ${MAX_Q_LENGTH} characters` });
  }
  const limitText = oneQueryValue(query, 'limit', errors);
  const limit = limitText === undefined ? DEFAULT_LIMIT : Number(limitText);
  if (limitText !== undefined && !(/^\d+$/.test(limitText) && limit >= 1 && limit <= MAX_LIMIT)) {
    errors.push({ path: 'query.limit', message: `must be a whole number from 1 to ${MAX_LIMIT}` });
  }
  const cursor = oneQueryValue(query, 'cursor', errors);
  const after = cursor === undefined ? undefined : decodeCursor(cursor);
  if (cursor !== undefined && !CURSOR_RE.test(cursor)) {
    errors.push({ path: 'query.cursor', message: 'is not a cursor this service gave out' });
  }
  return errors.length > 0 ? E.left(errors) : E.right({ filter, limit, after });
};
