import { isTriggerId } from '../model/triggers/codecs';
import * as E from 'fp-ts/Either';
import type { Request, Response } from 'express';
import { v7 as uuidv7 } from 'uuid';
import * as t from 'io-ts';
import { TriggerDeps } from './deps';
import { decide, TriggerCommand } from '../model/triggers/decide';
import { streamOf } from '../model/triggers/events';
import { patchDefinition } from '../model/triggers/merge-patch';
import { CommandResult, handleCommand } from '../model/triggers/handle-command';
import { DomainError } from '../kernel/domain-error';
import { sendError } from '../http/problem';
import { etagOf, ifMatchError, ifMatchOf, linkToNext, metadataOf, sendJson } from '../http/request';
import { toFieldErrors } from '../kernel/field-errors';
import { encodeCursor, parseListQuery } from './list-query';
import { parseIdsToDelete } from './delete-query';
import { hasHistory, historyPage } from './history';
import { parseHistoryQuery } from './history-query';
import { READ_MODEL_WAIT_MS } from '../kernel/limits';
import { toResource } from '../projections/trigger-view';
import { getTriggerAsOf } from './as-of';

type Outcome = E.Either<DomainError, CommandResult>;

/**
 * Waits, at most READ_MODEL_WAIT_MS, for the read model to hold a write, so the client's next
 * read sees it. The answer never depends on it: a write is stored once it is appended.
 */
const settle = async (deps: TriggerDeps, position: bigint | undefined) => {
  // A projection known to be stuck will not catch up within the bound: do not wait for it.
  if (position !== undefined && deps.projection.failure() === undefined) await deps.projection.waitFor(position, READ_MODEL_WAIT_MS);
};

/** Sends the trigger as the command left it: the same resource the read model will show. */
const sendTrigger = async (deps: TriggerDeps, res: Response, id: string, result: CommandResult, status: number) => {
  await settle(deps, result.position);
  const { state, version, createdAt, updatedAt } = result;
  if (state.status !== 'live') return sendError(res, { _tag: 'NotFound', ids: [id] });
  const view = {
    id,
    definition: state.definition,
    version,
    created_at: createdAt,
    updated_at: updatedAt,
    ...(state.deactivatedReason === undefined ? {} : { deactivated_reason: state.deactivatedReason }),
  };
  sendJson(res, status, JSON.stringify(toResource(view)), { ETag: etagOf(version) });
};

const run = (
  deps: TriggerDeps,
  req: Request,
  res: Response,
  id: string,
  command: (state: Parameters<typeof decide>[1]) => E.Either<DomainError, TriggerCommand>,
): Promise<Outcome> | Outcome => {
  const ifMatch = ifMatchOf(req);
  if (ifMatch.kind === 'invalid') return E.left({ _tag: 'Validation', errors: [ifMatchError] });
  return handleCommand(
    deps.store,
    streamOf(id),
    (state) => {
      if (ifMatch.kind === 'any' && state.status !== 'live') return E.left({ _tag: 'NotFound', ids: [id] });
      return E.flatMap(command(state), (c) => decide(c, state));
    },
    { metadata: metadataOf(res, deps.now()), ...(ifMatch.kind === 'version' ? { expectedVersion: ifMatch.version } : {}) },
  );
};

const decodeDefinition = (deps: TriggerDeps, body: unknown) =>
  E.mapLeft((errors: t.Errors): DomainError => ({ _tag: 'Validation', errors: toFieldErrors(errors) }))(deps.triggerInput.decode(body));

export const createTrigger = (deps: TriggerDeps) => async (req: Request, res: Response) => {
  const input = decodeDefinition(deps, req.body);
  if (E.isLeft(input)) return sendError(res, input.left);
  const id = uuidv7();
  const outcome = await handleCommand(
    deps.store,
    streamOf(id),
    (state) => decide({ type: 'CreateTrigger', data: { trigger_id: id, definition: input.right.definition } }, state),
    { metadata: metadataOf(res, deps.now()), newStream: true },
  );
  if (E.isLeft(outcome)) return sendError(res, outcome.left);
  res.set('Location', `${req.baseUrl}/api/action-triggers/${id}`);
  await sendTrigger(deps, res, id, outcome.right, 201);
};

export const getTrigger = (deps: TriggerDeps) => async (req: Request, res: Response) => {
  const id = req.params.id;
  // A past state is folded from the events: the read model holds only the present.
  if (req.query.as_of !== undefined && isTriggerId(id)) return getTriggerAsOf(deps.store, id, req, res);
  const found = isTriggerId(id) ? deps.readModel.getJson(id) : undefined;
  if (!found) return sendError(res, { _tag: 'NotFound', ids: [String(id)] });
  sendJson(res, 200, found.json, { ETag: etagOf(found.version) });
};

export const listTriggers = (deps: TriggerDeps) => (req: Request, res: Response) => {
  const query = parseListQuery(req.query);
  if (E.isLeft(query)) return sendError(res, { _tag: 'Validation', errors: query.left });
  const page = deps.readModel.list(query.right.filter, query.right.limit, query.right.after);
  if (page.nextAfter !== undefined) res.set('Link', linkToNext(req, encodeCursor(page.nextAfter)));
  sendJson(res, 200, `[${page.items.join(',')}]`);
};

/** PUT: full replacement. The id comes from the path, or from the body on the collection. */
export const replaceTrigger = (deps: TriggerDeps, idFrom: 'path' | 'body') => async (req: Request, res: Response) => {
  const input = decodeDefinition(deps, req.body);
  if (E.isLeft(input)) return sendError(res, input.left);
  const bodyId = input.right.id;
  const id = idFrom === 'path' ? req.params.id : bodyId;
  if (idFrom === 'body' && id === undefined)
    return sendError(res, {
      _tag: 'Validation',
      errors: [{ path: 'id', message: 'is required to replace a trigger through the collection' }],
    });
  if (idFrom === 'path' && bodyId !== undefined && bodyId !== id)
    return sendError(res, { _tag: 'Validation', errors: [{ path: 'id', message: 'contradicts the trigger id in the path' }] });
  if (!isTriggerId(id)) return sendError(res, { _tag: 'NotFound', ids: [String(id)] });
  const definition = input.right.definition;
  const outcome = await run(deps, req, res, id, () => E.right({ type: 'ReplaceTrigger', data: { trigger_id: id, definition } }));
  if (E.isLeft(outcome)) return sendError(res, outcome.left);
  await sendTrigger(deps, res, id, outcome.right, 200);
};

/** PATCH: a JSON merge patch over the current definition, validated as a whole. */
export const patchTrigger = (deps: TriggerDeps) => async (req: Request, res: Response) => {
  const id = req.params.id;
  if (!isTriggerId(id)) return sendError(res, { _tag: 'NotFound', ids: [String(id)] });
  if (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body)) {
    return sendError(res, { _tag: 'Validation', errors: [{ path: '(body)', message: 'must be a JSON merge patch object' }] });
  }
  const shape = deps.triggerPatch.decode(req.body);
  if (E.isLeft(shape)) return sendError(res, { _tag: 'Validation', errors: toFieldErrors(shape.left) });
  const patch = req.body as Record<string, unknown>;
  if (patch.id !== undefined && patch.id !== null && patch.id !== id) {
    return sendError(res, { _tag: 'Validation', errors: [{ path: 'id', message: 'contradicts the trigger id in the path' }] });
  }
  const outcome = await run(deps, req, res, id, (state) => {
    if (state.status !== 'live') return E.left({ _tag: 'NotFound', ids: [id] });
    const merged = patchDefinition(state.definition, { ...patch, id: null });
    return E.map((input: { definition: typeof state.definition }) => ({
      type: 'ReplaceTrigger' as const,
      data: { trigger_id: id, definition: input.definition },
    }))(decodeDefinition(deps, merged));
  });
  if (E.isLeft(outcome)) return sendError(res, outcome.left);
  await sendTrigger(deps, res, id, outcome.right, 200);
};

export const deleteTrigger = (deps: TriggerDeps) => async (req: Request, res: Response) => {
  const id = req.params.id;
  if (!isTriggerId(id)) return sendError(res, { _tag: 'NotFound', ids: [String(id)] });
  const outcome = await run(deps, req, res, id, () => E.right({ type: 'DeleteTrigger', data: { trigger_id: id } }));
  if (E.isLeft(outcome)) return sendError(res, outcome.left);
  await settle(deps, outcome.right.position);
  res.status(204).end();
};

/** DELETE on the collection: every id must exist, else nothing is deleted. */
export const deleteTriggers = (deps: TriggerDeps) => async (req: Request, res: Response) => {
  const ids = parseIdsToDelete(req.query, req.body);
  if (E.isLeft(ids)) return sendError(res, { _tag: 'Validation', errors: ids.left });
  const unknown = ids.right.filter((id) => deps.readModel.getJson(id) === undefined);
  if (unknown.length > 0) return sendError(res, { _tag: 'NotFound', ids: unknown, nothingDeleted: true });
  let last: bigint | undefined;
  for (const id of ids.right) {
    const outcome = await handleCommand(
      deps.store,
      streamOf(id),
      (state) => decide({ type: 'DeleteTrigger', data: { trigger_id: id } }, state),
      { metadata: metadataOf(res, deps.now()) },
    );
    if (E.isRight(outcome)) last = outcome.right.position ?? last;
  }
  await settle(deps, last);
  res.status(204).end();
};

/**
 * A page of a trigger's events, oldest first: after version `after`, at most `limit`, stopping
 * before MAX_LIST_PAGE_BYTES. Past the last version a known trigger answers [] (nothing newer yet).
 */
export const triggerHistory = (deps: TriggerDeps) => async (req: Request, res: Response) => {
  const id = req.params.id;
  const query = parseHistoryQuery(req.query);
  if (E.isLeft(query)) return sendError(res, { _tag: 'Validation', errors: query.left });
  const { after, limit } = query.right;
  const page = isTriggerId(id) ? await historyPage(deps.store, id, after, limit) : { items: [], nextAfter: undefined };
  // An empty page from the start is no stream; a later one needs a look at the stream's end.
  const known = page.items.length > 0 || (after > 0 && isTriggerId(id) && (await hasHistory(deps.store, id)));
  if (!known) return sendError(res, { _tag: 'NotFound', ids: [String(id)] });
  if (page.nextAfter !== undefined) res.set('Link', linkToNext(req, String(page.nextAfter), 'after'));
  sendJson(res, 200, `[${page.items.join(',')}]`);
};
