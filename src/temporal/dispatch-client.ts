import { Client, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type {
  ActionOutcome,
  AttemptsAs,
  CancelAsk,
  DispatchPlan,
  DispatchStatus,
  DispatchTurns,
  RedeliveryMode,
  RetrySettings,
  SignalEnvelope,
  TriggerOrdering,
} from '../dispatch/types';
import { workflowIdOf } from '../dispatch/types';
import { PendingActivity, shownProgress } from '../dispatch/attempts';
import { ContentType, FailedTriggerIds, searchableTriggerIds, SignalName, TriggerIds } from '../dispatch/search-attributes';
import type { DispatchView } from '@action-triggers/client';
import { MAX_LOCAL_FIRST_ATTEMPTS } from '../kernel/limits';
import { DispatchPage, DispatchState, dispatchStatesOf, listDispatchesOf } from './dispatch-list';
import type { GiveTurn } from '../dispatch/ordering';
import { giveTurnThrough } from './give-turn';
// Started and queried by the functions themselves: a renamed workflow or query fails to compile, not at run time.
import { dispatchSignal, statusQuery } from '../workflows/dispatch';
import { cancelUpdate } from '../workflows/cancellation';

/** The dispatch of one signal as `GET /api/signals/<id>` shows it (src/signals/status/signal-view.ts adds what the store knows), declared with the client. */
export type { DispatchView };

export interface DispatchClient {
  /**
   * Starts the signal's workflow with its plan (or, for a redelivery, the redelivery's workflow);
   * the same workflow id never starts a second one. `turns`: its place in its instance orders.
   */
  start(
    signal: SignalEnvelope,
    plan: DispatchPlan,
    redelivery?: RedeliveryStart,
    requestId?: string,
    turns?: DispatchTurns,
  ): Promise<{ workflowId: string; duplicate: boolean }>;
  /** Tells a dispatch waiting in an instance order that it is its turn (src/ordering/turn-store.ts). */
  giveTurn: GiveTurn;
  /** The signal's own dispatch, or with `workflowId` one of its redeliveries. */
  status(signalId: string, workflowId?: string): Promise<DispatchView | undefined>;
  /**
   * Cancels open actions of a dispatch (`ask.deliveryIds`, or all): the ids it cancelled, none when
   * the dispatch has ended or has none of them open.
   */
  cancel(workflowId: string, ask: CancelAsk): Promise<string[]>;
  /** The trigger's dispatches, newest first, a page at a time (Temporal visibility). */
  listForTrigger(triggerId: string, pageSize: number, pageToken: Uint8Array | undefined): Promise<DispatchPage>;
  /** The states of up to 100 workflows by id (visibility); a workflow it does not know is missing. */
  statesOf(workflowIds: readonly string[]): Promise<Map<string, DispatchState>>;
  /** Workflow ids of dispatches started since `since` in which an action of the trigger failed for good, newest first. */
  failedSince(triggerId: string, since: Date, max: number): Promise<string[]>;
  reachable(): Promise<boolean>;
}

export interface RedeliveryStart {
  workflowId: string;
  of: { workflowId: string; mode: RedeliveryMode };
}

const REACHABLE_DEADLINE_MS = 2000;
const START_DEADLINE_MS = 5000;
/**
 * A cancel waits for a worker to take it: bounded, so a dispatch whose workers are away gets a
 * 503, not a hung request. A first attempt running inside the workflow task holds it until the
 * task's heartbeat, about 8 s in: the bound leaves room for that.
 */
const CANCEL_DEADLINE_MS = 15_000;
/** A status query no worker answers (none running) falls back to the plan instead of holding the request. */
const QUERY_DEADLINE_MS = 10_000;
/** How the workflow refuses a cancel that would end nothing (src/workflows/cancellation.ts). */
const NOTHING_TO_CANCEL = /^nothing to cancel/;

interface Pending {
  activityId?: string | null;
  attempt?: number | null;
  state?: number | null;
  lastFailure?: { message?: string | null } | null;
}
const SCHEDULED = 1;
const WORKFLOW_TASK_STARTED = 2;

/** A pending activity from describe(), as the attempt accounting reads it. */
const progressOf = (p: Pending | undefined): PendingActivity | undefined =>
  p?.attempt
    ? { attempt: p.attempt, scheduled: p.state === SCHEDULED, ...(p.lastFailure?.message ? { lastFailure: p.lastFailure.message } : {}) }
    : undefined;

const orderingView = (o: TriggerOrdering | undefined) =>
  !o ? {} : 'instanceKey' in o ? { instance_key: o.instanceKey } : { unordered: o.unordered };

export const viewOf = (
  signalId: string,
  state: string,
  status: DispatchStatus | undefined,
  pending: Pending[] = [],
  workflowId = workflowIdOf(signalId),
): DispatchView => ({
  id: signalId,
  workflow_id: workflowId,
  state,
  triggers: (status?.triggers ?? []).map((t) => ({ trigger_id: t.triggerId, version: t.version, ...orderingView(t.ordering) })),
  actions: (status?.actions ?? []).map((a: ActionOutcome) => {
    const shown = shownProgress(a, progressOf(pending.find((x) => x.activityId === a.deliveryId)));
    return {
      delivery_id: a.deliveryId,
      trigger_id: a.triggerId,
      version: a.version,
      kind: a.kind,
      index: a.index,
      state: shown.state,
      attempts: shown.attempts,
      ...(a.statusCode === undefined ? {} : { status_code: a.statusCode }),
      ...(shown.lastError ? { last_error: shown.lastError } : {}),
      warnings: a.warnings,
      ...(a.cancelled ? { cancelled_by: a.cancelled.by, cancelled_at: a.cancelled.at } : {}),
      ...(a.waitingFor && shown.state === 'waiting' ? { waiting_for: a.waitingFor } : {}),
    };
  }),
});

/**
 * Small dispatches send their first attempts inside the first workflow task (see
 * MAX_LOCAL_FIRST_ATTEMPTS); larger ones in batches, a few activities instead of one per action.
 */
const attemptsAsFor = (plan: DispatchPlan): AttemptsAs => (plan.actions.length <= MAX_LOCAL_FIRST_ATTEMPTS ? 'local-first' : 'batched');

export interface DispatchClientOptions {
  eagerStart?: boolean;
  /** How long a dispatch waiting for its turn waits before it looks for one before it that closed (default 300 s; tests set it short). */
  turnCheckSecs?: number;
}

export const createDispatchClient = (
  client: Client,
  taskQueue: string,
  retry: RetrySettings,
  options: DispatchClientOptions = {},
): DispatchClient => ({
  start: async (signal, plan, redelivery, requestId, turns) => {
    const workflowId = redelivery?.workflowId ?? workflowIdOf(signal.id);
    const triggerIds = searchableTriggerIds(plan.triggers);
    try {
      // Bounded, retries included: a start never hangs on a server that does not answer, and
      // none is still retrying after its caller stopped (the relay tries again itself).
      await client.connection.withDeadline(Date.now() + START_DEADLINE_MS, () =>
        client.workflow.start(dispatchSignal, {
          taskQueue,
          workflowId,
          args: [
            {
              signal,
              retry,
              plan,
              attemptsAs: attemptsAsFor(plan),
              marksFailed: true,
              ...(redelivery ? { redeliveryOf: redelivery.of } : {}),
              ...(requestId ? { requestId } : {}),
              // Only a signal's own dispatch takes turns (a redelivery is sent at once).
              ...(!redelivery && turns
                ? { turns: { ...turns, ...(options.turnCheckSecs ? { checkSecs: options.turnCheckSecs } : {}) } }
                : {}),
            },
          ],
          // A running or finished workflow with this id means the signal was accepted before.
          workflowIdConflictPolicy: 'FAIL',
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          requestEagerStart: options.eagerStart ?? false,
          typedSearchAttributes: [
            { key: SignalName, value: signal.signal },
            { key: ContentType, value: `${signal.app_label}.${signal.model_name}`.toLowerCase() },
            ...(triggerIds.length > 0 ? [{ key: TriggerIds, value: triggerIds }] : []),
          ],
        }),
      );
      return { workflowId, duplicate: false };
    } catch (e) {
      if (e instanceof WorkflowExecutionAlreadyStartedError) return { workflowId, duplicate: true };
      throw e;
    }
  },
  giveTurn: giveTurnThrough(client),
  cancel: async (workflowId, ask) => {
    const handle = client.workflow.getHandle<typeof dispatchSignal>(workflowId);
    try {
      return await client.connection.withDeadline(Date.now() + CANCEL_DEADLINE_MS, () =>
        handle.executeUpdate(cancelUpdate, { args: [ask] }),
      );
    } catch (e) {
      // Ended (or no longer kept) and refused by the validator both mean nothing was open.
      if (e instanceof WorkflowNotFoundError) return [];
      if (e instanceof WorkflowUpdateFailedError && NOTHING_TO_CANCEL.test(e.cause?.message ?? '')) return [];
      throw e;
    }
  },
  status: async (signalId, workflowId = workflowIdOf(signalId)) => {
    const handle = client.workflow.getHandle<typeof dispatchSignal>(workflowId);
    let description;
    try {
      description = await handle.describe();
    } catch (e) {
      if (e instanceof WorkflowNotFoundError) return undefined;
      throw e;
    }
    const state = description.status.name.toLowerCase();
    if (state === 'completed') return viewOf(signalId, 'completed', await handle.result(), [], workflowId);
    if (state !== 'running') return viewOf(signalId, state, undefined, [], workflowId);
    // A workflow task in progress (first attempts running locally in it) would hold a query until
    // it ends, up to the attempt's time-out: answer at once, its actions shown as planned.
    if (description.raw.pendingWorkflowTask?.state === WORKFLOW_TASK_STARTED) return viewOf(signalId, 'running', undefined, [], workflowId);
    const status = await client.connection
      .withDeadline(Date.now() + QUERY_DEADLINE_MS, () => handle.query(statusQuery))
      .catch(() => undefined);
    return viewOf(signalId, status?.state ?? 'running', status, (description.raw.pendingActivities ?? []) as Pending[], workflowId);
  },
  listForTrigger: (triggerId, pageSize, pageToken) => listDispatchesOf(client, triggerId, pageSize, pageToken),
  statesOf: (workflowIds) => dispatchStatesOf(client, workflowIds),
  failedSince: async (triggerId, since, max) => {
    const ids: string[] = [];
    // Ids are UUIDs or our own id syntax and the time is ISO: nothing to escape in the query.
    const query = `${FailedTriggerIds.name} = '${triggerId}' AND StartTime >= '${since.toISOString()}'`;
    for await (const w of client.workflow.list({ query, pageSize: Math.min(max, 1000) })) {
      ids.push(w.workflowId);
      if (ids.length >= max) break;
    }
    return ids;
  },
  reachable: async () => {
    // Bounded by a timer too: a native connection (the worker's, shared) retries past the call's
    // deadline while the server is stopping, for many seconds.
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((r) => {
      timer = setTimeout(() => r(false), REACHABLE_DEADLINE_MS);
    });
    const answered = client.connection
      .withDeadline(Date.now() + REACHABLE_DEADLINE_MS, () => client.connection.workflowService.getSystemInfo({}))
      .then(
        () => true,
        () => false,
      );
    try {
      return await Promise.race([answered, late]);
    } finally {
      clearTimeout(timer);
    }
  },
});
