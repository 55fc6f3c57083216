import { isTriggerId } from '../model/triggers/codecs';
import * as E from 'fp-ts/Either';
import type { Request } from 'express';
import { FieldError } from '../kernel/field-errors';

export const MAX_IDS = 1000;
/** Fewer in the query: 100 ids keep the URL (about 4 KB) well under Node's 16 KB header limit. */
export const MAX_QUERY_IDS = 100;

/**
 * Ids for a collection DELETE: `?id=a&id=b` and/or a body `{"ids": [...]}` (a non-empty list).
 * Naming none deletes nothing.
 */
export const parseIdsToDelete = (query: Request['query'], body: unknown): E.Either<FieldError[], string[]> => {
  const errors: FieldError[] = [];
  for (const name of Object.keys(query))
    if (name !== 'id') errors.push({ path: `query.${name}`, message: 'is not a known parameter (id)' });
  const fromQuery = query.id === undefined ? [] : Array.isArray(query.id) ? query.id : [query.id];
  let fromBody: unknown[] = [];
  if (body !== undefined) {
    const ok = typeof body === 'object' && body !== null && !Array.isArray(body);
    const extra = ok ? Object.keys(body).filter((k) => k !== 'ids') : [];
    extra.forEach((k) => errors.push({ path: k, message: 'is not a known field (ids)' }));
    const ids = ok ? (body as { ids?: unknown }).ids : undefined;
    if (!Array.isArray(ids)) errors.push({ path: 'ids', message: 'must be an array of trigger ids' });
    else if (ids.length === 0) errors.push({ path: 'ids', message: 'must name at least one trigger' });
    else fromBody = ids;
  }
  fromQuery.forEach((id, i) => {
    if (!isTriggerId(id)) errors.push({ path: `query.id[${i}]`, message: 'must be a trigger id (UUID)' });
  });
  fromBody.forEach((id, i) => {
    if (!isTriggerId(id)) errors.push({ path: `ids[${i}]`, message: 'must be a trigger id (UUID)' });
  });
  if (fromQuery.length > MAX_QUERY_IDS)
    errors.push({ path: 'query.id', message: `at most ${MAX_QUERY_IDS} ids in the query (up to ${MAX_IDS} in the body)` });
  if (fromBody.length > MAX_IDS) errors.push({ path: 'ids', message: `at most ${MAX_IDS} ids at once` });
  return errors.length > 0 ? E.left(errors) : E.right([...new Set([...fromQuery, ...fromBody] as string[])]);
};
