import * as E from 'fp-ts/Either';
import type { Request } from 'express';
import { FieldError } from '../validation/field-errors';
import { isTriggerId } from '../http/request';

const MAX_IDS = 1000;

/** Ids for a collection DELETE: `?id=a&id=b` or a body `{"ids": [...]}`, not both. */
export const parseIdsToDelete = (query: Request['query'], body: unknown): E.Either<FieldError[], string[]> => {
  const errors: FieldError[] = [];
  for (const name of Object.keys(query)) if (name !== 'id') errors.push({ path: `query.${name}`, message: 'is not a known parameter (id)' });
  const fromQuery = query.id === undefined ? [] : Array.isArray(query.id) ? query.id : [query.id];
  let fromBody: unknown[] = [];
  if (body !== undefined) {
    const ok = typeof body === 'object' && body !== null && !Array.isArray(body);
    const extra = ok ? Object.keys(body).filter((k) => k !== 'ids') : [];
    extra.forEach((k) => errors.push({ path: k, message: 'is not a known field (ids)' }));
    const ids = ok ? (body as { ids?: unknown }).ids : undefined;
    if (!Array.isArray(ids)) errors.push({ path: 'ids', message: 'must be an array of trigger ids' });
    else fromBody = ids;
  }
  if (fromQuery.length > 0 && fromBody.length > 0) errors.push({ path: 'ids', message: 'give ids in the query or the body, not both' });
  const where = fromQuery.length > 0 ? 'query.id' : 'ids';
  const ids = fromQuery.length > 0 ? fromQuery : fromBody;
  ids.forEach((id, i) => { if (!isTriggerId(id)) errors.push({ path: `${where}[${i}]`, message: 'must be a trigger id (UUID)' }); });
  if (ids.length === 0 && errors.length === 0) errors.push({ path: where, message: 'name at least one trigger to delete' });
  if (ids.length > MAX_IDS) errors.push({ path: where, message: `at most ${MAX_IDS} ids at once` });
  return errors.length > 0 ? E.left(errors) : E.right([...new Set(ids as string[])]);
};
