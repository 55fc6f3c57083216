import type { Express, Request, Response } from 'express';
import { v7 as uuidv7 } from 'uuid';
import type { SignalEnvelope } from '../dispatch/types';
import { invalid, problem, sendProblem } from '../http/problem';
import { mount, RouteGuards } from '../http/mount';
import { DispatchClient } from '../temporal/dispatch-client';
import { toFieldErrors } from '../validation/field-errors';
import { SIGNAL_ID, SignalBatch } from './codecs';
import { overfullPlans, oversizeSignals } from './accept';

export interface SignalDeps {
  /** Absent when this process runs without Temporal: signal endpoints answer 503. */
  readonly dispatch: DispatchClient | undefined;
  readonly now: () => Date;
  readonly log: { error(msg: string, fields?: Record<string, unknown>): void };
}

/**
 * Workflow starts one request has in flight at once: 500 at a time (a full batch) made the
 * Temporal dev server fail starts under load, and the request then 503s.
 */
const START_CONCURRENCY = 16;

/** `Promise.all(items.map(fn))` with at most `limit` calls in flight; results keep the order of `items`. */
const mapBounded = async <A, B>(items: readonly A[], limit: number, fn: (a: A) => Promise<B>): Promise<B[]> => {
  const results: B[] = new Array(items.length);
  let next = 0;
  const lane = async () => { while (next < items.length) { const i = next++; results[i] = await fn(items[i]!); } };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
};

/**
 * POST /api/signals: one signal or an array. The whole request is checked first (fields, sizes,
 * how many actions each signal matches): any bad item and nothing starts, and the answer names
 * each bad item. Then each signal's workflow starts with its plan (202); the same id again
 * starts nothing new. If Temporal fails part-way, the answer (503) lists which ids started:
 * retrying the same request with the same ids completes it without a second dispatch.
 */
const acceptSignals = (deps: SignalDeps) => async (req: Request, res: Response) => {
  const decoded = SignalBatch.decode(req.body);
  if (decoded._tag === 'Left') return sendProblem(res, invalid(toFieldErrors(decoded.left)));
  if (!deps.dispatch) return sendProblem(res, problem(503, 'dispatch is not running in this process'));
  const dispatch = deps.dispatch;
  const isBatch = Array.isArray(req.body);
  const envelopes: SignalEnvelope[] = decoded.right.map((s) => ({
    id: s.id ?? uuidv7(), signal: s.signal, app_label: s.app_label, model_name: s.model_name,
    instance: s.instance, occurred_at: s.occurred_at ?? deps.now().toISOString(),
  }));
  const oversize = oversizeSignals(envelopes, isBatch);
  if (oversize.length > 0) return sendProblem(res, invalid(oversize));
  const plans = envelopes.map((e) => dispatch.plan(e));
  const overfull = overfullPlans(plans, isBatch);
  if (overfull.length > 0) return sendProblem(res, problem(422, 'nothing was accepted', overfull));
  const outcomes = await mapBounded(envelopes.map((_e, i) => i), START_CONCURRENCY, (i) => dispatch.start(envelopes[i]!, plans[i]!)
    .then((value) => ({ ok: true as const, value }), (reason: unknown) => ({ ok: false as const, reason })));
  const failed = outcomes.flatMap((o) => (o.ok ? [] : [o.reason]));
  if (failed.length > 0) {
    deps.log.error('could not start dispatch', { failed: failed.length, of: envelopes.length, error: String(failed[0]) });
    return sendProblem(res, {
      ...problem(503, `the dispatch service is unavailable: ${failed.length} of ${envelopes.length} signals were not accepted; retry with the same signal ids`),
      signals: envelopes.map((e, i) => ({ id: e.id, accepted: outcomes[i]!.ok })),
    });
  }
  const started = outcomes.flatMap((o, i) => (o.ok ? [{ id: envelopes[i]!.id, workflow_id: o.value.workflowId, duplicate: o.value.duplicate }] : []));
  res.status(202).json(isBatch ? started : started[0]);
};

const signalStatus = (deps: SignalDeps) => async (req: Request, res: Response) => {
  const id = req.params.id;
  if (typeof id !== 'string' || !SIGNAL_ID.test(id)) return sendProblem(res, problem(404, `no signal with id ${String(id)}`));
  if (!deps.dispatch) return sendProblem(res, problem(503, 'dispatch is not running in this process'));
  try {
    const view = await deps.dispatch.status(id);
    if (!view) return sendProblem(res, problem(404, `no signal with id ${id}`));
    res.status(200).json(view);
  } catch (e) {
    deps.log.error('could not read dispatch status', { error: String(e) });
    sendProblem(res, problem(503, 'the dispatch service is unavailable'));
  }
};

export const mountSignalRoutes = (app: Express, deps: SignalDeps, guards: RouteGuards) => {
  mount(app, '/api/signals', { POST: { scope: 'signals:write', handle: acceptSignals(deps) } }, guards);
  mount(app, '/api/signals/:id', { GET: { scope: 'triggers:read', handle: signalStatus(deps) } }, guards);
};
