import type { Express, Request, Response } from 'express';
import { v7 as uuidv7 } from 'uuid';
import type { SignalEnvelope } from '../dispatch/types';
import { invalid, problem, sendProblem } from '../http/problem';
import { mount, RouteGuards } from '../http/mount';
import { DispatchClient } from '../temporal/dispatch-client';
import { toFieldErrors } from '../validation/field-errors';
import { SIGNAL_ID, SignalBatch } from './codecs';

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
 * POST /api/signals: one signal or an array. Each is matched against the active triggers and
 * accepted once its workflow has started with that plan (202); the same id again starts
 * nothing new. If Temporal cannot be reached, nothing is accepted (503) and the caller
 * retries with the same ids.
 */
const acceptSignals = (deps: SignalDeps) => async (req: Request, res: Response) => {
  const decoded = SignalBatch.decode(req.body);
  if (decoded._tag === 'Left') return sendProblem(res, invalid(toFieldErrors(decoded.left)));
  if (!deps.dispatch) return sendProblem(res, problem(503, 'dispatch is not running in this process'));
  const dispatch = deps.dispatch;
  const envelopes: SignalEnvelope[] = decoded.right.map((s) => ({
    id: s.id ?? uuidv7(), signal: s.signal, app_label: s.app_label, model_name: s.model_name,
    instance: s.instance, occurred_at: s.occurred_at ?? deps.now().toISOString(),
  }));
  try {
    const started = await mapBounded(envelopes, START_CONCURRENCY, async (e) => {
      const { workflowId, duplicate } = await dispatch.start(e);
      return { id: e.id, workflow_id: workflowId, duplicate };
    });
    res.status(202).json(Array.isArray(req.body) ? started : started[0]);
  } catch (e) {
    deps.log.error('could not start dispatch', { error: String(e) });
    sendProblem(res, problem(503, 'the dispatch service is unavailable; retry with the same signal ids'));
  }
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
