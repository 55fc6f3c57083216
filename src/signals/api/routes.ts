import type { Express, NextFunction, Request, Response } from 'express';
import { v7 as uuidv7 } from 'uuid';
import type { ReadModel } from '../../projections/read-model';
import type { DispatchPlan, SignalEnvelope } from '../../dispatch/types';
import { EventStore, STORE_RETRY_AFTER_SECS, StoreUnavailable } from '../../event-store/port';
import type { Logger } from '../../kernel/logger';
import { sendError } from '../../http/problem';
import { mount, RouteGuards } from '../../http/mount';
import { recordSignals } from '../intake/record';
import { type Matched, matchEach } from '../intake/match';
import { relayCheckpoint } from '../../model/signals/relay-lease';
import { signalStreamOf, storedSignalOf } from '../../model/signals/signal-record';
import { dispatchedView, storedView } from '../status/signal-view';
import { withDeliveredSoFar } from '../status/delivered-so-far';
import { DispatchClient } from '../../temporal/dispatch-client';
import { toFieldErrors } from '../../kernel/field-errors';
import { SIGNAL_ID, SignalBatch } from '../../model/signals/codecs';
import { overfullPlans, oversizeSignals } from '../../model/signals/accept';
import { requestOrigin } from '../../model/signals/origin';
import type { Metrics } from '../../observability/metrics';
import { Accepted } from '../intake/record';
import { ReadModelUnavailable } from '../../projections/read-model';
import { encodeSignalCursor, parseSignalListQuery } from '../list/list-query';
import { listSignals, SignalListPage } from '../list/list';
import { linkToNext } from '../../http/request';

export interface SignalDeps {
  readonly store: EventStore;
  readonly readModel: ReadModel;
  /** Absent when this process runs without Temporal: the endpoints that ask Temporal answer 503 (intake does not). */
  readonly dispatch: DispatchClient | undefined;
  /** The matching triggers and their actions, from the read model (src/model/signals/matching.ts). */
  readonly plan: (signal: SignalEnvelope) => DispatchPlan;
  /** The plan and the triggers not matched, in one read of the read model (intake). */
  readonly match: (signal: SignalEnvelope) => Matched;
  readonly now: () => Date;
  readonly log: Pick<Logger, 'error' | 'info'>;
  readonly metrics?: Metrics;
  /** Keep the instance of a signal that matches no trigger (`signals.keep_unmatched_instances`); default not. */
  readonly keepUnmatchedInstances?: boolean;
}

const outcomeOf = (a: Accepted) =>
  a.duplicate ? ('duplicate' as const) : a.state === 'unmatched' ? ('unmatched' as const) : ('accepted' as const);

/** Per signal stored (accepted, duplicate, unmatched); per request answered 4xx (rejected: its signals may not even parse). */
const countSignals = (metrics: Metrics | undefined, accepted: readonly Accepted[]) => {
  for (const a of accepted) metrics?.signals(outcomeOf(a));
};
const countRejected = (metrics: Metrics | undefined) => (_req: Request, res: Response, next: NextFunction) => {
  if (metrics?.enabled)
    res.once('finish', () => {
      if (res.statusCode >= 400 && res.statusCode < 500) metrics.signals('rejected');
    });
  next();
};

/**
 * POST /api/signals: one signal or an array. The whole request is checked first (fields, sizes,
 * how many actions each signal matches): any bad item and nothing is accepted, and the answer
 * names each bad item. Then each signal is stored with its plan (202 once that is durable); the
 * relay starts its dispatch, also while Temporal is away. The same id again stores nothing new
 * for as long as the signal is retained. If the store fails part-way, the answer (503) lists
 * which ids were accepted: retrying the same request with the same ids completes it.
 */
const acceptSignals = (deps: SignalDeps) => async (req: Request, res: Response) => {
  const decoded = SignalBatch.decode(req.body);
  if (decoded._tag === 'Left') return sendError(res, { _tag: 'Validation', errors: toFieldErrors(decoded.left) });
  // No dispatch client needed: intake only appends; the relay (in whichever process holds its lease) starts dispatches.
  const isBatch = Array.isArray(req.body);
  const envelopes: SignalEnvelope[] = decoded.right.map((s) => ({
    id: s.id ?? uuidv7(),
    signal: s.signal,
    app_label: s.app_label,
    model_name: s.model_name,
    instance: s.instance,
    occurred_at: s.occurred_at ?? deps.now().toISOString(),
    ...(s.instance_key === undefined ? {} : { instance_key: s.instance_key }),
    ...(s.previous === undefined ? {} : { previous: s.previous }),
  }));
  const oversize = oversizeSignals(envelopes, isBatch);
  if (oversize.length > 0) return sendError(res, { _tag: 'Validation', errors: oversize });
  const matches = await matchEach(envelopes, deps.match);
  const overfull = overfullPlans(
    matches.map((m) => m.plan),
    isBatch,
  );
  if (overfull.length > 0) return sendError(res, { _tag: 'NothingAccepted', errors: overfull });
  // The request's id and trace go with each signal: the relay starts its dispatch in them.
  const outcomes = await recordSignals(deps.store, envelopes, matches, deps.now(), requestOrigin(), deps.keepUnmatchedInstances);
  countSignals(
    deps.metrics,
    outcomes.flatMap((o) => (o.ok ? [o.value] : [])),
  );
  const failed = outcomes.flatMap((o) => (o.ok ? [] : [o.reason]));
  const signalIds = envelopes.map((e) => e.id);
  if (failed.length > 0) {
    deps.log.error('could not store signals', {
      signal_id: signalIds,
      failed: failed.length,
      of: envelopes.length,
      error: String(failed[0]),
    });
    return sendError(res, {
      _tag: 'Unavailable',
      reason: `the signal store is unavailable: ${failed.length} of ${envelopes.length} signals were not accepted; retry with the same signal ids`,
      retryAfterSecs: STORE_RETRY_AFTER_SECS,
      extensions: { signals: envelopes.map((e, i) => ({ id: e.id, accepted: outcomes[i]!.ok })) },
    });
  }
  const accepted = outcomes.flatMap((o) => (o.ok ? [o.value] : []));
  for (const a of accepted) deps.log.info('signal accepted', { signal_id: a.id, state: a.state, duplicate: a.duplicate });
  res.status(202).json(isBatch ? accepted : accepted[0]);
};

const signalStatus = (deps: SignalDeps) => async (req: Request, res: Response) => {
  const id = req.params.id;
  if (typeof id !== 'string' || !SIGNAL_ID.test(id)) return sendError(res, { _tag: 'SignalNotFound', id: String(id) });
  const stored = storedSignalOf(await deps.store.read(signalStreamOf(id)));
  const known = stored && storedView(stored, await relayCheckpoint(deps.store));
  if (known) return res.status(200).json(await withDeliveredSoFar(known, deps.store));
  if (!deps.dispatch) return sendError(res, { _tag: 'NoDispatch' });
  try {
    // Dispatched (or accepted before signals were stored): the workflow knows.
    const asked = await deps.dispatch.status(id);
    const view = stored ? dispatchedView(stored, asked) : asked;
    if (!view) return sendError(res, { _tag: 'SignalNotFound', id });
    // After the planned actions are filled in (a workflow busy with a task answers none): the
    // ledger's deliveries show on them too.
    res.status(200).json(await withDeliveredSoFar(view, deps.store));
  } catch (e) {
    deps.log.error('could not read dispatch status', { error: String(e) });
    sendError(res, { _tag: 'DispatchUnavailable' });
  }
};

/** GET /api/signals?trigger_id=&state=&limit=&cursor=: stored signals, newest first (src/signals/list/list.ts). */
const signalList = (deps: SignalDeps) => async (req: Request, res: Response) => {
  const query = parseSignalListQuery(req.query);
  if (Array.isArray(query)) return sendError(res, { _tag: 'Validation', errors: query });
  if (query.unknownCursor) return sendError(res, { _tag: 'UnknownCursor' });
  if (!deps.dispatch) return sendError(res, { _tag: 'NoDispatch' });
  let page: SignalListPage;
  try {
    page = await listSignals(deps.readModel, deps.dispatch, await relayCheckpoint(deps.store), query);
  } catch (e) {
    if (e instanceof ReadModelUnavailable || e instanceof StoreUnavailable) throw e;
    deps.log.error('could not list signals', { error: String(e) });
    return sendError(res, { _tag: 'DispatchUnavailable' });
  }
  const next = page.next === undefined ? null : encodeSignalCursor(page.next);
  if (next) res.set('Link', linkToNext(req, next));
  res.status(200).json({ items: page.items, next_cursor: next });
};

export const mountSignalRoutes = (app: Express, deps: SignalDeps, guards: RouteGuards) => {
  // Before the route's guards: a refused key or body is a rejected request too.
  app.post('/api/signals', countRejected(deps.metrics));
  mount(
    app,
    '/api/signals',
    {
      GET: { scope: 'triggers:read', handle: signalList(deps) },
      POST: { scope: 'signals:write', handle: acceptSignals(deps) },
    },
    guards,
  );
  mount(app, '/api/signals/:id', { GET: { scope: 'triggers:read', handle: signalStatus(deps) } }, guards);
};
