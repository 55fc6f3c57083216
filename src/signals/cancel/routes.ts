import type { Express, Request, Response } from 'express';
import * as t from 'io-ts';
import type { EventStore } from '../../event-store/port';
import { callerOf } from '../../http/auth';
import { sendError } from '../../http/problem';
import { mount, RouteGuards } from '../../http/mount';
import { closed } from '../../kernel/closed';
import { toFieldErrors } from '../../kernel/field-errors';
import { deliveryIds, SIGNAL_ID } from '../../model/signals/codecs';
import type { Metrics } from '../../observability/metrics';
import type { DispatchClient } from '../../temporal/dispatch-client';
import { cancelDeliveries } from './cancel';

/** `POST /api/signals/<id>/cancel`: no body, `{}`, or the deliveries to cancel. */
const CancelBody = closed('CancelDeliveries', {}, { delivery_ids: deliveryIds('every pending delivery') });
type CancelBody = t.TypeOf<typeof CancelBody>;

export interface CancelRouteDeps {
  readonly store: EventStore;
  readonly dispatch: DispatchClient | undefined;
  readonly now: () => Date;
  readonly metrics?: Metrics;
  readonly log: { error(msg: string, fields?: Record<string, unknown>): void };
}

/** Why a cancel did not get through: no worker took the update in time, or Temporal is away. */
const whyUnavailable = (e: unknown) =>
  /deadline/i.test(String(e))
    ? 'no worker took the cancel in time (is a worker running on this task queue?)'
    : 'Temporal could not be reached';

const cancel = (deps: CancelRouteDeps) => async (req: Request, res: Response) => {
  const id = String(req.params.id);
  if (!SIGNAL_ID.test(id)) return sendError(res, { _tag: 'SignalNotFound', id, stored: true });
  const body = CancelBody.decode(req.body ?? {});
  if (body._tag === 'Left') return sendError(res, { _tag: 'Validation', errors: toFieldErrors(body.left) });
  if (!deps.dispatch) return sendError(res, { _tag: 'NoDispatch' });
  const ask: CancelBody = body.right;
  try {
    const r = await cancelDeliveries({ ...deps, dispatch: deps.dispatch }, id, ask.delivery_ids, callerOf(res).actor);
    if (r.outcome === 'cancelled') return void res.status(200).json(r.body);
    if (r.outcome === 'unknown') return sendError(res, { _tag: 'SignalNotFound', id, stored: true });
    sendError(res, { _tag: 'CancelRefused', detail: r.detail, ...(r.errors ? { errors: r.errors } : {}) });
  } catch (e) {
    // Temporal, its workers or the store away: 503; asking again is safe (what was cancelled stays so).
    deps.log.error('could not cancel deliveries', { error: String(e) });
    sendError(res, { _tag: 'DispatchUnavailable', tryAgain: true, why: whyUnavailable(e) });
  }
};

export const mountCancelRoutes = (app: Express, deps: CancelRouteDeps, guards: RouteGuards) => {
  mount(app, '/api/signals/:id/cancel', { POST: { scope: 'signals:write', handle: cancel(deps) } }, guards);
};
