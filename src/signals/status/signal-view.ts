import { DispatchStatus, workflowIdOf } from '../../dispatch/types';
import { Checkpoint } from '../../event-store/port';
import { DispatchView, viewOf } from '../../temporal/dispatch-client';
import { StoredRedelivery, StoredSignal } from '../../model/signals/signal-record';

/** The dispatch as it was planned, before its workflow exists (every action pending). */
const plannedStatus = (s: StoredSignal): DispatchStatus => ({
  signalId: s.record.signal.id,
  state: 'running',
  triggers: s.record.plan.triggers,
  actions: s.record.plan.actions.map((a) => ({ ...a, state: 'pending', attempts: 0, warnings: [] })),
});

const contentTypeOf = (s: StoredSignal) => `${s.record.signal.app_label}.${s.record.signal.model_name}`;

/** Why an unmatched signal matched nothing, in one sentence. */
const unmatchedReason = (s: StoredSignal) => {
  if (s.record.not_matched.length === 0) return `no trigger watches ${contentTypeOf(s)}`;
  if (s.record.not_matched.some((n) => n.reason === 'condition_false'))
    return `no trigger watching ${s.record.signal.signal} of ${contentTypeOf(s)} had a condition that held (see not_matched)`;
  return `no active trigger watches ${s.record.signal.signal} of ${contentTypeOf(s)} (see not_matched)`;
};

/** What the store adds to every view: when it was accepted, the triggers it did not match, its redeliveries. */
const withRecord = (view: DispatchView, s: StoredSignal): DispatchView => ({
  ...view,
  accepted_at: s.acceptedAt,
  not_matched: s.record.not_matched,
  ...(s.record.not_matched_truncated ? { not_matched_truncated: true } : {}),
  ...(s.redeliveries.length > 0
    ? {
        redeliveries: s.redeliveries.map((r) => ({
          number: r.number,
          workflow_id: r.workflow_id,
          mode: r.mode,
          delivery_ids: r.delivery_ids,
          requested_at: r.requestedAt,
        })),
      }
    : {}),
});

/**
 * One redelivery's dispatch: queued until the relay passes it, refused, or what its workflow says
 * (`expired` once Temporal no longer keeps it). `fromTemporal` is asked only when needed.
 */
export const redeliveryView = async (
  s: StoredSignal,
  r: StoredRedelivery,
  relayCheckpoint: Checkpoint,
  fromTemporal: () => Promise<DispatchView | undefined>,
): Promise<DispatchView> => {
  const id = s.record.signal.id;
  const planned = {
    ...plannedStatus(s),
    triggers: r.plan.triggers,
    actions: r.plan.actions.map((a) => ({ ...a, state: 'pending' as const, attempts: 0, warnings: [] })),
  };
  const link = { redelivery_of: workflowIdOf(id), number: r.number, mode: r.mode, requested_at: r.requestedAt };
  if (r.refused)
    return {
      ...viewOf(id, 'refused', planned, [], r.workflow_id),
      reason: `Temporal refused to start the dispatch: ${r.refused}`,
      ...link,
    };
  if (relayCheckpoint === 'start' || r.position > relayCheckpoint) return { ...viewOf(id, 'queued', planned, [], r.workflow_id), ...link };
  const view = await fromTemporal();
  return {
    ...(view
      ? orPlanned(view, planned)
      : {
          ...viewOf(id, 'expired', planned, [], r.workflow_id),
          reason: 'its workflow is no longer kept by Temporal (past its retention)',
        }),
    ...link,
  };
};

/**
 * The view of a stored signal when Temporal need not be asked, or undefined when it must:
 * unmatched (never dispatched), refused by Temporal, or queued (after the relay's checkpoint).
 */
export const storedView = (s: StoredSignal, relayCheckpoint: Checkpoint): DispatchView | undefined => {
  const id = s.record.signal.id;
  if (s.record.plan.actions.length === 0)
    return withRecord({ ...viewOf(id, 'unmatched', plannedStatus(s)), reason: unmatchedReason(s) }, s);
  if (s.refused)
    return withRecord({ ...viewOf(id, 'refused', plannedStatus(s)), reason: `Temporal refused to start the dispatch: ${s.refused}` }, s);
  if (relayCheckpoint === 'start' || s.position > relayCheckpoint) return withRecord(viewOf(id, 'queued', plannedStatus(s)), s);
  return undefined;
};

/** A running workflow that could not be asked (a workflow task in progress) shows its actions as planned. */
const orPlanned = (view: DispatchView, planned: DispatchStatus): DispatchView => {
  if (view.state !== 'running' || view.actions.length > 0) return view;
  const shown = viewOf(view.id, 'running', planned, [], view.workflow_id);
  return { ...view, triggers: shown.triggers, actions: shown.actions };
};

/** The workflow's view with the store's additions; a workflow Temporal no longer keeps is `expired`. */
export const dispatchedView = (s: StoredSignal, fromTemporal: DispatchView | undefined): DispatchView =>
  withRecord(
    fromTemporal
      ? orPlanned(fromTemporal, plannedStatus(s))
      : {
          ...viewOf(s.record.signal.id, 'expired', plannedStatus(s)),
          reason: 'its workflow is no longer kept by Temporal (past its retention)',
        },
    s,
  );
