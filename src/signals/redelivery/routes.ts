import type { Express, Request, Response } from 'express';
import type { ReadModel } from '../../projections/read-model';
import { EventStore } from '../../event-store/port';
import { sendError } from '../../http/problem';
import { mount, RouteGuards } from '../../http/mount';
import { relayCheckpoint } from '../../model/signals/relay-lease';
import { signalStreamOf, storedSignalOf } from '../../model/signals/signal-record';
import { redeliveryView } from '../status/signal-view';
import { SIGNAL_ID } from '../../model/signals/codecs';
import { DispatchClient } from '../../temporal/dispatch-client';
import { toFieldErrors } from '../../kernel/field-errors';
import { redeliverFailed } from './bulk';
import { RedeliverBody, RedeliverFailedBody } from './codecs';
import { Redelivered, RedeliveryDeps, requestRedelivery } from './redeliver';
import { withDeliveredSoFar } from '../status/delivered-so-far';

export interface RedeliveryRouteDeps {
  readonly store: EventStore;
  readonly readModel: ReadModel;
  readonly dispatch: DispatchClient | undefined;
  readonly plan: RedeliveryDeps['plan'];
  readonly now: () => Date;
  readonly log: { error(msg: string, fields?: Record<string, unknown>): void };
}

const answer = (res: Response, r: Redelivered, signalId: string) => {
  switch (r.outcome) {
    case 'queued':
      return void res.status(202).json(r.body);
    case 'unknown':
      return sendError(res, { _tag: 'SignalNotFound', id: signalId, stored: true });
    // The body is well-formed but the signal's state refuses it: 409, naming the field when one is the cause.
    case 'invalid':
      return sendError(res, { _tag: 'RedeliveryRefused', detail: "no such action in this signal's dispatch", errors: r.errors });
    case 'busy':
      return sendError(res, { _tag: 'RedeliveryRefused', detail: r.detail });
    case 'nothing':
      return sendError(res, { _tag: 'RedeliveryRefused', detail: r.detail });
  }
};

/** Temporal or the store failing: 503, never a 500; the ask can be repeated. */
const unavailable = (deps: RedeliveryRouteDeps, res: Response, e: unknown) => {
  deps.log.error('could not redeliver', { error: String(e) });
  sendError(res, { _tag: 'DispatchUnavailable', tryAgain: true });
};

const redeliver = (deps: RedeliveryRouteDeps) => async (req: Request, res: Response) => {
  const id = String(req.params.id);
  if (!SIGNAL_ID.test(id)) return sendError(res, { _tag: 'SignalNotFound', id, stored: true });
  const body = RedeliverBody.decode(req.body);
  if (body._tag === 'Left') return sendError(res, { _tag: 'Validation', errors: toFieldErrors(body.left) });
  if (!deps.dispatch) return sendError(res, { _tag: 'NoDispatch' });
  try {
    answer(
      res,
      await requestRedelivery({ store: deps.store, dispatch: deps.dispatch, plan: deps.plan, now: deps.now }, id, body.right),
      id,
    );
  } catch (e) {
    unavailable(deps, res, e);
  }
};

const redeliveryStatus = (deps: RedeliveryRouteDeps) => async (req: Request, res: Response) => {
  const id = String(req.params.id);
  const n = Number(req.params.n);
  const stored = SIGNAL_ID.test(id) ? storedSignalOf(await deps.store.read(signalStreamOf(id))) : undefined;
  const r = Number.isSafeInteger(n) ? stored?.redeliveries[n - 1] : undefined;
  if (!stored || !r) return sendError(res, { _tag: 'RedeliveryNotFound', signalId: id, number: String(req.params.n) });
  if (!deps.dispatch) return sendError(res, { _tag: 'NoDispatch' });
  const dispatch = deps.dispatch;
  try {
    const view = await redeliveryView(stored, r, await relayCheckpoint(deps.store), () => dispatch.status(id, r.workflow_id));
    res.status(200).json(await withDeliveredSoFar(view, deps.store));
  } catch (e) {
    unavailable(deps, res, e);
  }
};

const redeliverFailedOfTrigger = (deps: RedeliveryRouteDeps) => async (req: Request, res: Response) => {
  const triggerId = String(req.params.id);
  const body = RedeliverFailedBody.decode(req.body);
  if (body._tag === 'Left') return sendError(res, { _tag: 'Validation', errors: toFieldErrors(body.left) });
  // Only a trigger we hold: its id then has our syntax, safe inside a visibility query.
  if (!deps.readModel.get(triggerId)) return sendError(res, { _tag: 'NotFound', ids: [triggerId] });
  if (!deps.dispatch) return sendError(res, { _tag: 'NoDispatch' });
  try {
    const counts = await redeliverFailed(
      { store: deps.store, dispatch: deps.dispatch, plan: deps.plan, now: deps.now },
      triggerId,
      new Date(body.right.since),
    );
    res.status(202).json(counts);
  } catch (e) {
    unavailable(deps, res, e);
  }
};

export const mountRedeliveryRoutes = (app: Express, deps: RedeliveryRouteDeps, guards: RouteGuards) => {
  mount(app, '/api/signals/:id/redeliver', { POST: { scope: 'signals:write', handle: redeliver(deps) } }, guards);
  mount(app, '/api/signals/:id/redeliveries/:n', { GET: { scope: 'triggers:read', handle: redeliveryStatus(deps) } }, guards);
  mount(
    app,
    '/api/action-triggers/:id/redeliver-failed',
    { POST: { scope: 'signals:write', handle: redeliverFailedOfTrigger(deps) } },
    guards,
  );
};
