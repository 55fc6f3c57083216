import { isTriggerId } from '../../model/triggers/codecs';
import type { Express, Request, Response } from 'express';
import { sendError } from '../../http/problem';
import { mount, RouteGuards } from '../../http/mount';
import { DispatchClient } from '../../temporal/dispatch-client';
import type { FieldError } from '../../kernel/field-errors';

export const DEFAULT_DISPATCH_PAGE = 20;
export const MAX_DISPATCH_PAGE = 100;
/** A cursor is Temporal's page token, base64url: bounded so no request carries an unbounded one. */
export const DISPATCH_CURSOR = '^[A-Za-z0-9_-]{1,4096}$';
const CURSOR_RE = new RegExp(DISPATCH_CURSOR);

interface Deps {
  readonly dispatch: DispatchClient | undefined;
  readonly log: { error(msg: string, fields?: Record<string, unknown>): void };
}

const queryOf = (req: Request): { limit: number; cursor?: Uint8Array } | FieldError[] => {
  const errors: FieldError[] = [];
  const known = new Set(['limit', 'cursor']);
  for (const key of Object.keys(req.query)) if (!known.has(key)) errors.push({ path: `query.${key}`, message: 'is not a known parameter' });
  const { limit: limitText, cursor } = req.query;
  const limit = limitText === undefined ? DEFAULT_DISPATCH_PAGE : Number(limitText);
  if (limitText !== undefined && !(typeof limitText === 'string' && /^\d+$/.test(limitText) && limit >= 1 && limit <= MAX_DISPATCH_PAGE)) {
    errors.push({ path: 'query.limit', message: `must be a whole number from 1 to ${MAX_DISPATCH_PAGE}` });
  }
  if (cursor !== undefined && !(typeof cursor === 'string' && CURSOR_RE.test(cursor)))
    errors.push({ path: 'query.cursor', message: 'must be a cursor from a previous page' });
  if (errors.length > 0) return errors;
  return { limit, ...(typeof cursor === 'string' ? { cursor: Buffer.from(cursor, 'base64url') } : {}) };
};

/**
 * `GET /api/action-triggers/<id>/dispatches`: the trigger's dispatches, newest first, from
 * Temporal's visibility (`TriggerIds`); also for a deleted trigger, whose dispatches Temporal keeps.
 */
const listDispatches = (deps: Deps) => async (req: Request, res: Response) => {
  const id = req.params.id;
  if (!isTriggerId(id)) return sendError(res, { _tag: 'NotFound', ids: [String(id)] });
  const query = queryOf(req);
  if (Array.isArray(query)) return sendError(res, { _tag: 'Validation', errors: query });
  if (!deps.dispatch) return sendError(res, { _tag: 'NoDispatch' });
  try {
    const page = await deps.dispatch.listForTrigger(id.toLowerCase(), query.limit, query.cursor);
    res
      .status(200)
      .json({ items: page.items, next_cursor: page.nextPageToken ? Buffer.from(page.nextPageToken).toString('base64url') : null });
  } catch (e) {
    // With a cursor: if the same list without it works, the cursor was not one of Temporal's page tokens.
    if (
      query.cursor &&
      (await deps.dispatch.listForTrigger(id.toLowerCase(), 1, undefined).then(
        () => true,
        () => false,
      ))
    ) {
      // Well-formed but not Temporal's: no such page (a 400 is for a malformed query).
      return sendError(res, { _tag: 'UnknownCursor' });
    }
    deps.log.error('could not list dispatches', { error: String(e) });
    sendError(res, { _tag: 'DispatchUnavailable' });
  }
};

export const mountDispatchRoutes = (app: Express, deps: Deps, guards: RouteGuards) => {
  mount(app, '/api/action-triggers/:id/dispatches', { GET: { scope: 'triggers:read', handle: listDispatches(deps) } }, guards);
};
