import type { IndexedSignal, SignalIndex, SignalIndexFilter } from '../../projections/signal-index';
import { workflowIdOf } from '../../dispatch/types';
import type { Checkpoint } from '../../event-store/port';
import type { DispatchClient } from '../../temporal/dispatch-client';
import type { DispatchState } from '../../temporal/dispatch-list';
import { SignalListQuery, SignalState } from './list-query';

/** One signal as the list shows it; `GET /api/signals/<id>` has the rest (actions, attempts, reasons). */
export interface SignalSummary {
  id: string;
  signal: string;
  app_label: string;
  model_name: string;
  accepted_at: string;
  state: string;
  trigger_ids: string[];
  workflow_id?: string;
  /** Completed with an action that failed for good. */
  failed_actions?: boolean;
  closed_at?: string;
}

export interface SignalListPage {
  items: SignalSummary[];
  next?: bigint;
}

/** Signals read from the index per step while a state filter skips some. */
const SCAN_BATCH = 100;
/** At most this many signals are looked at per request: a page may then hold fewer than `limit`; `next` goes on. */
export const MAX_SCANNED = 1000;

const STORED: Partial<Record<SignalState, SignalIndexFilter['kind']>> = { unmatched: 'unmatched', refused: 'refused' };

const isQueued = (s: IndexedSignal, relay: Checkpoint) => relay === 'start' || s.position > relay;

/**
 * Visibility lags a start by about a second; a workflow it does not know is asked for directly
 * only for signals this recent, older ones are past Temporal's retention (`expired`): a page of
 * old signals never costs a describe call each.
 */
const ASK_DIRECTLY_WITHIN_MS = 3_600_000;

/**
 * A page of `GET /api/signals`, newest first. The index (read model) says which signals there
 * are and what our store knows (unmatched, refused, queued); Temporal's visibility says the
 * state of the dispatched ones, one call per step; a workflow visibility does not know (just
 * started, or past Temporal's retention) is asked for directly.
 */
export const listSignals = async (
  index: Pick<SignalIndex, 'signalPage'>,
  dispatch: Pick<DispatchClient, 'statesOf' | 'status'>,
  relay: Checkpoint,
  query: SignalListQuery,
  now = Date.now(),
): Promise<SignalListPage> => {
  // `queued` is known from the store alone: the others are skipped without asking Temporal.
  const wanted = (r: IndexedSignal) => query.state !== 'queued' || isQueued(r, relay);
  const kind = query.state === undefined ? undefined : (STORED[query.state] ?? 'dispatched');
  const batch = query.state === undefined ? query.limit + 1 : SCAN_BATCH;
  const items: SignalSummary[] = [];
  let before = query.before;
  let scanned = 0;
  for (;;) {
    const rows = index.signalPage(
      {
        ...(query.triggerId ? { triggerId: query.triggerId } : {}),
        ...(kind ? { kind } : {}),
        ...(before === undefined ? {} : { before }),
      },
      batch,
    );
    const asked = rows.filter((r) => wanted(r) && r.matched && !r.refused && !isQueued(r, relay));
    const states = await dispatch.statesOf(asked.map((r) => workflowIdOf(r.id)));
    for (const r of rows) {
      if (items.length === query.limit || scanned === MAX_SCANNED) return { items, next: before };
      scanned++;
      before = r.position;
      if (!wanted(r)) continue;
      const summary = await summaryOf(r, relay, states, dispatch, now);
      if (query.state === undefined || summary.state === query.state) items.push(summary);
    }
    if (rows.length < batch) return { items };
  }
};

const summaryOf = async (
  r: IndexedSignal,
  relay: Checkpoint,
  states: Map<string, DispatchState>,
  dispatch: Pick<DispatchClient, 'status'>,
  now: number,
): Promise<SignalSummary> => {
  const base = {
    id: r.id,
    signal: r.signal,
    app_label: r.app_label,
    model_name: r.model_name,
    accepted_at: r.accepted_at,
    trigger_ids: r.trigger_ids,
  };
  if (!r.matched) return { ...base, state: 'unmatched' };
  if (r.refused) return { ...base, state: 'refused' };
  if (isQueued(r, relay)) return { ...base, state: 'queued' };
  const workflowId = workflowIdOf(r.id);
  const recent = now - Date.parse(r.accepted_at) < ASK_DIRECTLY_WITHIN_MS;
  const known: DispatchState | undefined =
    states.get(workflowId) ??
    (recent
      ? await dispatch.status(r.id).then((v) => v && { state: v.state, failed: v.actions.some((a) => a.state === 'failed') })
      : undefined);
  if (!known) return { ...base, state: 'expired', workflow_id: workflowId };
  return {
    ...base,
    state: known.state,
    workflow_id: workflowId,
    ...(known.state === 'completed' ? { failed_actions: known.failed } : {}),
    ...(known.closed_at ? { closed_at: known.closed_at } : {}),
  };
};
