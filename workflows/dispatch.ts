import {
  ActivityFailure, ApplicationFailure, defineQuery, patched, proxyActivities, proxyLocalActivities, setHandler, sleep,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type {
  ActionOutcome, ActionPlan, DeliveryReceipt, DispatchInput, DispatchStatus, FailureDetails, FirstAttempt, RetrySettings,
} from '../src/dispatch/types';
import { FIRST_ATTEMPT_BATCH } from '../src/dispatch/bounds';
import { FailedTriggerIds, searchableTriggerIds, TriggerIds } from '../src/dispatch/search-attributes';
import { FailedAttempt, recordDelivered, recordFailed } from '../src/dispatch/attempts';
import { millis, retryPolicyOf } from '../src/dispatch/retry-schedule';

export const statusQuery = defineQuery<DispatchStatus>('status');

/**
 * Extra time Temporal allows an attempt beyond `timeout_secs`. The activity cuts the request at
 * `timeout_secs` itself; Temporal's own timeout only covers a dead worker. Too tight a margin
 * and a worker short of CPU (reading, rendering) overruns it after sending: a duplicate.
 */
const REPORT_GRACE_SECS = 10;

/**
 * Matching for dispatches started before the API planned them: a quick read of the worker's
 * own read model, as a local activity (no round trip through the server), retried until it works.
 */
const { planActions } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

const actionActivities = (plan: ActionPlan, retry: RetrySettings, attemptsBefore: number) => proxyActivities<Activities>({
  activityId: plan.deliveryId,
  startToCloseTimeout: millis(plan.timeoutSecs + REPORT_GRACE_SECS),
  retry: retryPolicyOf(retry, attemptsBefore),
});

/**
 * The first attempt of each action as a local activity: for dispatches that say `local-first`
 * (small ones; each attempt checks the delivered ledger, so a lost workflow task does not send a
 * delivered action again), and in the replay of dispatches started before NO_LOCAL_ATTEMPTS.
 */
const firstAttempt = (plan: ActionPlan) => proxyLocalActivities<Activities>({
  startToCloseTimeout: millis(plan.timeoutSecs + REPORT_GRACE_SECS),
  retry: { maximumAttempts: 1 },
});

const LOCAL_FIRST_ATTEMPT = 'local-first-attempt';
/**
 * A local activity's result becomes durable only when its workflow task completes: a task that
 * times out (many first attempts in one task on a busy worker) or fails (a result over
 * Temporal's limits) ran every first attempt again, re-sending delivered webhooks. Since this
 * patch every attempt was a regular activity, whose completion the server records on its own;
 * since `DispatchInput.attemptsAs`, new dispatches say how in their input and record no marker,
 * and small ones run first attempts locally again, with the delivered ledger against re-sends.
 */
const NO_LOCAL_ATTEMPTS = 'no-local-attempts';

type Attempt = (activities: Pick<Activities, 'deliverWebhook' | 'publishToBroker'>, attemptsBefore: number) => Promise<DeliveryReceipt>;

const failedOf = (err: unknown): FailedAttempt => {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (!(cause instanceof ApplicationFailure)) return { message: cause instanceof Error ? cause.message : String(cause), retryable: true };
  return { message: cause.message, details: cause.details?.[0] as FailureDetails | undefined, retryable: !cause.nonRetryable };
};


/** One attempt of an action through `activities`, with the arguments its dispatch's attempts take. */
const attemptOf = (input: DispatchInput, plan: ActionPlan, ledger: boolean): Attempt => (activities, attemptsBefore) => {
  // Only dispatches that use the ledger say so: older histories replay their arguments unchanged.
  const args = {
    plan, signal: input.signal, retry: input.retry, attemptsBefore, ...(ledger ? { ledger: true } : {}),
    ...(input.requestId ? { requestId: input.requestId } : {}),
  };
  return plan.kind === 'webhook' ? activities.deliverWebhook(args) : activities.publishToBroker(args);
};

/**
 * A first attempt that failed: recorded as failed for good, or as retrying, and then the wait
 * it asked for (Retry-After or backoff) before attempt 2. True when the action goes on.
 */
const afterFailedFirst = async (input: DispatchInput, outcome: ActionOutcome, f: FailedAttempt): Promise<boolean> => {
  // Attempt 1 even when the failure carries no details (a time-out seen by Temporal itself).
  f.details = { ...f.details, attempt: 1 };
  if (!f.retryable || input.retry.maxAttempts <= 1) {
    recordFailed(outcome, f, 'failed');
    return false;
  }
  recordFailed(outcome, f, 'retrying');
  await sleep(f.details.retryDelayMs ?? input.retry.initialIntervalSecs * 1000);
  return true;
};

/** The attempts after `attemptsBefore`, as regular activities under the retry policy, until one delivers or they run out. */
const retryAction = async (input: DispatchInput, plan: ActionPlan, outcome: ActionOutcome, attemptsBefore: number, ledger: boolean) => {
  try {
    recordDelivered(outcome, await attemptOf(input, plan, ledger)(actionActivities(plan, input.retry, attemptsBefore), attemptsBefore));
  } catch (err) {
    const f = failedOf(err);
    // A last attempt that timed out carries no details; Temporal says the attempts ran out.
    if (!f.details && err instanceof ActivityFailure && err.retryState === 'MAXIMUM_ATTEMPTS_REACHED') f.details = { attempt: input.retry.maxAttempts };
    recordFailed(outcome, f, 'failed');
  }
};

const runAction = async (input: DispatchInput, plan: ActionPlan, outcome: ActionOutcome, localFirst: boolean) => {
  const ledger = input.attemptsAs === 'local-first';
  if (!localFirst) return retryAction(input, plan, outcome, 0, ledger);
  try {
    recordDelivered(outcome, await attemptOf(input, plan, ledger)(firstAttempt(plan), 0));
  } catch (err) {
    if (await afterFailedFirst(input, outcome, failedOf(err))) await retryAction(input, plan, outcome, 1, ledger);
  }
};

/**
 * A batch of first attempts: one activity for up to FIRST_ATTEMPT_BATCH actions. Its worker
 * heartbeats, so a dead one is noticed within the heartbeat time-out; it may wait for the
 * worker's send slots, so its time-out allows every action its own in turn.
 */
const batchActivities = (plans: readonly ActionPlan[], k: number) => proxyActivities<Activities>({
  activityId: `first-attempts-${k}`,
  startToCloseTimeout: millis(plans.reduce((n, p) => n + p.timeoutSecs, 0) + REPORT_GRACE_SECS),
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 10 },
});

/**
 * `batched`: the first attempts in batches (see deliverFirstAttempts), then each action that
 * failed its first attempt on its own retries, as every action does. A batch that gave up (its
 * attempts ran out) leaves each of its actions to its own activities from attempt 1; the ledger
 * keeps them from sending again what the batch delivered.
 */
const runBatched = async (input: DispatchInput, plans: readonly ActionPlan[], outcomes: readonly ActionOutcome[]) => {
  const batches = Array.from({ length: Math.ceil(plans.length / FIRST_ATTEMPT_BATCH) }, (_, k) => k * FIRST_ATTEMPT_BATCH);
  await Promise.all(batches.map(async (from, k) => {
    const batch = plans.slice(from, from + FIRST_ATTEMPT_BATCH);
    let firsts: FirstAttempt[] | undefined;
    try {
      firsts = await batchActivities(batch, k).deliverFirstAttempts({
        plans: [...batch], signal: input.signal, retry: input.retry, ...(input.requestId ? { requestId: input.requestId } : {}),
      });
    } catch {
      firsts = undefined;
    }
    await Promise.all(batch.map(async (plan, j) => {
      const outcome = outcomes[from + j]!;
      const first = firsts?.[j];
      if (!first) return retryAction(input, plan, outcome, 0, true);
      if ('receipt' in first) return recordDelivered(outcome, first.receipt);
      if (await afterFailedFirst(input, outcome, first.failed)) await retryAction(input, plan, outcome, 1, true);
    }));
  }));
};

/**
 * Whether the first attempts run locally. New dispatches say so in their input (`attemptsAs`), so
 * they record no patch marker; older ones decide by their markers as they did: planned ones tried
 * locally first until NO_LOCAL_ATTEMPTS, unplanned ones from LOCAL_FIRST_ATTEMPT until then.
 */
const firstAttemptsLocal = (input: DispatchInput) => (input.attemptsAs !== undefined
  ? input.attemptsAs === 'local-first'
  : !patched(NO_LOCAL_ATTEMPTS) && (input.plan !== undefined || patched(LOCAL_FIRST_ATTEMPT)));

/**
 * One workflow per accepted signal (id `signal-<signal id>`): the matching triggers (planned by
 * the API at acceptance and recorded in the input), then every action concurrently: first
 * attempts locally (small dispatches), in batches (larger ones) or as activities (older ones),
 * the later attempts of each action its own activity with its own time-out and retries. A failing action never stops the others;
 * the result lists every outcome.
 */
export async function dispatchSignal(input: DispatchInput): Promise<DispatchStatus> {
  const status: DispatchStatus = { signalId: input.signal.id, state: 'matching', triggers: [], actions: [] };
  setHandler(statusQuery, () => status);
  // Dispatches started before the API planned them ask the worker's read model, as they did.
  const plan = input.plan ?? await planActions(input.signal);
  status.triggers = plan.triggers;
  status.actions = plan.actions.map((a) => ({ ...a, state: 'pending', attempts: 0, warnings: [] }));
  if (!input.plan && plan.triggers.length > 0) upsertSearchAttributes([{ key: TriggerIds, value: searchableTriggerIds(plan.triggers) }]);
  status.state = 'running';
  if (input.attemptsAs === 'batched') await runBatched(input, plan.actions, status.actions);
  else {
    const localFirst = firstAttemptsLocal(input);
    await Promise.all(plan.actions.map((action, i) => runAction(input, action, status.actions[i]!, localFirst)));
  }
  const failed = status.actions.filter((a) => a.state === 'failed');
  if (input.marksFailed && failed.length > 0) upsertSearchAttributes([{ key: FailedTriggerIds, value: searchableTriggerIds(failed) }]);
  status.state = 'completed';
  return status;
}
