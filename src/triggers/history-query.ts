import * as E from 'fp-ts/Either';
import type { Request } from 'express';
import { FieldError } from '../kernel/field-errors';
import { oneQueryValue } from '../http/request';

export const DEFAULT_HISTORY_PAGE = 100;
export const MAX_HISTORY_PAGE = 1000;
/** The largest `after` taken: versions are counted in JSON numbers, exact up to here. */
export const MAX_HISTORY_AFTER = Number.MAX_SAFE_INTEGER;
const KNOWN = ['after', 'limit'];

/** `after`: the last version already seen (0: none); `limit`: at most this many events. */
export interface HistoryQuery {
  readonly after: number;
  readonly limit: number;
}

const wholeNumber = (text: string, min: number, max: number) => {
  const n = Number(text);
  return /^\d{1,16}$/.test(text) && n >= min && n <= max ? n : undefined;
};

/** Validates `GET /api/action-triggers/<id>/history`'s query string; every bad parameter is named. */
export const parseHistoryQuery = (query: Request['query']): E.Either<FieldError[], HistoryQuery> => {
  const errors: FieldError[] = [];
  for (const name of Object.keys(query)) {
    if (!KNOWN.includes(name)) errors.push({ path: `query.${name}`, message: `is not a known parameter (${KNOWN.join(', ')})` });
  }
  const afterText = oneQueryValue(query, 'after', errors);
  const after = afterText === undefined ? 0 : wholeNumber(afterText, 0, MAX_HISTORY_AFTER);
  if (after === undefined)
    errors.push({ path: 'query.after', message: `must be a version: a whole number from 0 to ${MAX_HISTORY_AFTER}` });
  const limitText = oneQueryValue(query, 'limit', errors);
  const limit = limitText === undefined ? DEFAULT_HISTORY_PAGE : wholeNumber(limitText, 1, MAX_HISTORY_PAGE);
  if (limit === undefined) errors.push({ path: 'query.limit', message: `must be a whole number from 1 to ${MAX_HISTORY_PAGE}` });
  return errors.length > 0 || after === undefined || limit === undefined ? E.left(errors) : E.right({ after, limit });
};
