import { ActionState, DispatchPlan, OPEN_ACTION_STATES } from '../../dispatch/types';
import type { EventStore } from '../../event-store/port';
import type { FieldError } from '../../kernel/field-errors';
import { dispatchStillQueued, startedDispatches } from '../../model/signals/started-dispatches';
import { signalStreamOf, StoredSignal, storedSignalOf } from '../../model/signals/signal-record';
import type { DeliveriesCancelled, DispatchView } from '@action-triggers/client';
import type { DispatchClient } from '../../temporal/dispatch-client';
import type { DeliveryKind, Metrics } from '../../observability/metrics';

export interface CancelDeps {
  readonly store: EventStore;
  readonly dispatch: DispatchClient;
  readonly now: () => Date;
  readonly metrics?: Metrics;
}

/** What asking to cancel came to; the route turns each into an answer. */
export type CancelOutcome =
  | { outcome: 'cancelled'; body: DeliveriesCancelled }
  | { outcome: 'unknown' }
  | { outcome: 'refused'; detail: string; errors?: FieldError[] };

/** How a delivery that was not cancelled had ended, for the 409 that says so. */
const ENDED: Partial<Record<ActionState, string>> = {
  delivered: 'was delivered',
  failed: 'failed for good',
  cancelled: 'was cancelled already',
};

type ShownAction = Pick<DispatchView['actions'][number], 'delivery_id' | 'kind' | 'state' | 'attempts'>;

/**
 * A dispatch's actions as its view shows them; a running one whose workflow task is busy (a first
 * attempt running in it) shows none, and then its plan's are all open.
 */
const actionsOf = (view: DispatchView, plan: DispatchPlan): ShownAction[] =>
  view.actions.length > 0 || view.state !== 'running'
    ? view.actions
    : plan.actions.map((a) => ({ delivery_id: a.deliveryId, kind: a.kind, state: 'pending', attempts: 0 }));

/** The delivery ids any dispatch of the signal planned. */
const plannedIds = (s: StoredSignal) =>
  new Set([s.record.plan, ...s.redeliveries.map((r) => r.plan)].flatMap((p) => p.actions.map((a) => a.deliveryId)));

/**
 * Cancels a stored signal's open deliveries (`deliveryIds`, or all) in every dispatch of it that
 * runs (its own, its redeliveries), recording `by` and the time in each. Refused, naming why, when
 * an id is not the signal's, a dispatch of it is still queued (the relay starts it within moments)
 * or nothing chosen is open. Temporal errors propagate (the caller answers 503).
 */
export const cancelDeliveries = async (
  deps: CancelDeps,
  signalId: string,
  deliveryIds: readonly string[] | undefined,
  by: string,
): Promise<CancelOutcome> => {
  const stored = storedSignalOf(await deps.store.read(signalStreamOf(signalId)));
  if (!stored) return { outcome: 'unknown' };
  if (stored.record.plan.actions.length === 0)
    return { outcome: 'refused', detail: 'this signal matched no trigger: it has no deliveries' };
  const known = plannedIds(stored);
  const strangers = (deliveryIds ?? []).flatMap((id, i) =>
    known.has(id) ? [] : [{ path: `delivery_ids[${i}]`, message: 'is not a delivery of this signal' }],
  );
  if (strangers.length > 0) return { outcome: 'refused', detail: 'no such delivery in this signal', errors: strangers };
  if (await dispatchStillQueued(deps.store, stored))
    return { outcome: 'refused', detail: 'a dispatch of this signal is still queued: ask again in a moment, once it has started' };

  const at = deps.now().toISOString();
  const cancelled: DeliveriesCancelled['cancelled'] = [];
  const ended = new Map<string, ActionState>();
  for (const { workflowId, plan } of startedDispatches(stored)) {
    const view = await deps.dispatch.status(signalId, workflowId);
    const chosen = (view ? actionsOf(view, plan) : []).filter((a) => !deliveryIds || deliveryIds.includes(a.delivery_id));
    const open = chosen.filter((a) => OPEN_ACTION_STATES.includes(a.state as ActionState));
    const ask = {
      deliveryIds: open.map((a) => a.delivery_id),
      attemptsSeen: Object.fromEntries(open.map((a) => [a.delivery_id, a.attempts])),
      by,
      at,
    };
    const done = open.length > 0 && view?.state === 'running' ? await deps.dispatch.cancel(workflowId, ask) : [];
    for (const id of done) cancelled.push({ delivery_id: id, workflow_id: workflowId });
    for (const kind of ['webhook', 'broker'] as const satisfies DeliveryKind[])
      deps.metrics?.cancelled(kind, chosen.filter((a) => a.kind === kind && done.includes(a.delivery_id)).length);
    for (const a of chosen) if (!done.includes(a.delivery_id)) ended.set(a.delivery_id, a.state as ActionState);
  }
  if (cancelled.length > 0) return { outcome: 'cancelled', body: { id: signalId, cancelled, cancelled_by: by, cancelled_at: at } };
  const why = (id: string) => {
    const state = ended.get(id);
    return (state && ENDED[state]) ?? 'has ended';
  };
  return {
    outcome: 'refused',
    detail: 'nothing to cancel: every chosen delivery of this signal has ended',
    ...(deliveryIds ? { errors: deliveryIds.map((id, i) => ({ path: `delivery_ids[${i}]`, message: why(id) })) } : {}),
  };
};
