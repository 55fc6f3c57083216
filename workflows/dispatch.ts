import {
  ActivityFailure, ApplicationFailure, defineQuery, patched, proxyActivities, proxyLocalActivities, setHandler, sleep,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type {
  ActionOutcome, ActionPlan, DeliveryReceipt, DispatchInput, DispatchStatus, FailureDetails, RetrySettings,
} from '../src/dispatch/types';
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


const runAction = async (input: DispatchInput, plan: ActionPlan, outcome: ActionOutcome, localFirst: boolean) => {
  const attempt: Attempt = (activities, attemptsBefore) => {
    // Only dispatches that say `local-first` use the ledger: older histories replay their arguments unchanged.
    const args = {
      plan, signal: input.signal, retry: input.retry, attemptsBefore, ...(input.attemptsAs === 'local-first' ? { ledger: true } : {}),
      ...(input.requestId ? { requestId: input.requestId } : {}),
    };
    return plan.kind === 'webhook' ? activities.deliverWebhook(args) : activities.publishToBroker(args);
  };
  let attemptsBefore = 0;
  if (localFirst) {
    try {
      recordDelivered(outcome, await attempt(firstAttempt(plan), 0));
      return;
    } catch (err) {
      // Attempt 1 even when the failure carries no details (a time-out seen by Temporal itself).
      const f = failedOf(err);
      f.details = { ...f.details, attempt: 1 };
      if (!f.retryable || input.retry.maxAttempts <= 1) return void recordFailed(outcome, f, 'failed');
      recordFailed(outcome, f, 'retrying');
      attemptsBefore = 1;
      // The wait before attempt 2: the activity's own choice (Retry-After or backoff).
      await sleep(f.details?.retryDelayMs ?? input.retry.initialIntervalSecs * 1000);
    }
  }
  try {
    recordDelivered(outcome, await attempt(actionActivities(plan, input.retry, attemptsBefore), attemptsBefore));
  } catch (err) {
    const f = failedOf(err);
    // A last attempt that timed out carries no details; Temporal says the attempts ran out.
    if (!f.details && err instanceof ActivityFailure && err.retryState === 'MAXIMUM_ATTEMPTS_REACHED') f.details = { attempt: input.retry.maxAttempts };
    recordFailed(outcome, f, 'failed');
  }
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
 * the API at acceptance and recorded in the input), then every action concurrently, each its
 * own activity with its own time-out and retries. A failing action never stops the others;
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
  const localFirst = firstAttemptsLocal(input);
  status.state = 'running';
  await Promise.all(plan.actions.map((action, i) => runAction(input, action, status.actions[i]!, localFirst)));
  const failed = status.actions.filter((a) => a.state === 'failed');
  if (input.marksFailed && failed.length > 0) upsertSearchAttributes([{ key: FailedTriggerIds, value: searchableTriggerIds(failed) }]);
  status.state = 'completed';
  return status;
}
