import { ActivityFailure, ApplicationFailure, proxyActivities, proxyLocalActivities, sleep } from '@temporalio/workflow';
import type { DispatchActivities } from '../dispatch/activities';
import type {
  ActionOutcome,
  ActionPlan,
  DeliveryReceipt,
  DispatchInput,
  FailureDetails,
  FirstAttempt,
  RetrySettings,
} from '../dispatch/types';
import { FIRST_ATTEMPT_BATCH } from '../dispatch/bounds';
import { FailedAttempt, recordDelivered, recordFailed } from '../dispatch/attempts';
import { millis, retryPolicyOf } from '../dispatch/retry-schedule';
import type { TurnArgs } from '../dispatch/ordering';
import { cancellable } from './cancellation';

/**
 * Extra time Temporal allows an attempt beyond `timeout_secs`. The activity cuts the request at
 * `timeout_secs` itself; Temporal's own timeout only covers a dead worker. Too tight a margin
 * and a worker short of CPU (reading, rendering) overruns it after sending: a duplicate.
 */
const REPORT_GRACE_SECS = 10;

const actionActivities = (plan: ActionPlan, retry: RetrySettings, attemptsBefore: number) =>
  proxyActivities<DispatchActivities>({
    activityId: plan.deliveryId,
    startToCloseTimeout: millis(plan.timeoutSecs + REPORT_GRACE_SECS),
    retry: retryPolicyOf(retry, attemptsBefore),
  });

/**
 * The first attempt of each action as a local activity, for dispatches that say `local-first`
 * (small ones; each attempt checks the delivered ledger, so a lost workflow task does not send a
 * delivered action again).
 */
const firstAttempt = (plan: ActionPlan) =>
  proxyLocalActivities<DispatchActivities>({
    startToCloseTimeout: millis(plan.timeoutSecs + REPORT_GRACE_SECS),
    retry: { maximumAttempts: 1 },
  });

type Attempt = (
  activities: Pick<DispatchActivities, 'deliverWebhook' | 'publishToBroker'>,
  attemptsBefore: number,
) => Promise<DeliveryReceipt>;

const failedOf = (err: unknown): FailedAttempt => {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (!(cause instanceof ApplicationFailure)) return { message: cause instanceof Error ? cause.message : String(cause), retryable: true };
  return { message: cause.message, details: cause.details?.[0] as FailureDetails | undefined, retryable: !cause.nonRetryable };
};

/** One attempt of an action through `activities`, with the arguments its dispatch's attempts take. */
const attemptOf =
  (input: DispatchInput, plan: ActionPlan, ledger: boolean, endsTurn?: TurnArgs): Attempt =>
  (activities, attemptsBefore) => {
    // Only dispatches that use the ledger say so: older histories replay their arguments unchanged.
    const args = {
      plan,
      signal: input.signal,
      retry: input.retry,
      attemptsBefore,
      ...(ledger ? { ledger: true } : {}),
      ...(input.requestId ? { requestId: input.requestId } : {}),
      ...(endsTurn ? { endsTurn } : {}),
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
  if (outcome.state === 'cancelled') return false;
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
    if (!f.details && err instanceof ActivityFailure && err.retryState === 'MAXIMUM_ATTEMPTS_REACHED')
      f.details = { attempt: input.retry.maxAttempts };
    recordFailed(outcome, f, 'failed');
  }
};

/**
 * Its attempts until delivered, failed for good or cancelled; true when the first one delivered
 * and also ended the turn it was given (`endsTurn`).
 */
const runAction = (
  input: DispatchInput,
  plan: ActionPlan,
  outcome: ActionOutcome,
  localFirst: boolean,
  endsTurn?: TurnArgs,
): Promise<boolean> => cancellable(outcome, false, () => attemptAction(input, plan, outcome, localFirst, endsTurn));

const attemptAction = async (
  input: DispatchInput,
  plan: ActionPlan,
  outcome: ActionOutcome,
  localFirst: boolean,
  endsTurn?: TurnArgs,
): Promise<boolean> => {
  const ledger = input.attemptsAs === 'local-first';
  if (!localFirst) {
    await retryAction(input, plan, outcome, 0, ledger);
    return false;
  }
  try {
    const receipt = await attemptOf(input, plan, ledger, endsTurn)(firstAttempt(plan), 0);
    recordDelivered(outcome, receipt);
    return receipt.turnEnded === true;
  } catch (err) {
    if (await afterFailedFirst(input, outcome, failedOf(err))) await retryAction(input, plan, outcome, 1, ledger);
    return false;
  }
};

/**
 * A batch of first attempts: one activity for up to FIRST_ATTEMPT_BATCH actions. Its worker
 * heartbeats, so a dead one is noticed within the heartbeat time-out; it may wait for the
 * worker's send slots, so its time-out allows every action its own in turn.
 */
const batchActivities = (plans: readonly ActionPlan[], id: string) =>
  proxyActivities<DispatchActivities>({
    activityId: `first-attempts-${id}`,
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
const runBatched = async (input: DispatchInput, plans: readonly ActionPlan[], outcomes: readonly ActionOutcome[], batchIds: string) => {
  const batches = Array.from({ length: Math.ceil(plans.length / FIRST_ATTEMPT_BATCH) }, (_, k) => k * FIRST_ATTEMPT_BATCH);
  await Promise.all(
    batches.map(async (from, k) => {
      const batch = plans.slice(from, from + FIRST_ATTEMPT_BATCH);
      let firsts: FirstAttempt[] | undefined;
      try {
        firsts = await batchActivities(batch, `${batchIds}${k}`).deliverFirstAttempts({
          plans: [...batch],
          signal: input.signal,
          retry: input.retry,
          ...(input.requestId ? { requestId: input.requestId } : {}),
        });
      } catch {
        firsts = undefined;
      }
      await Promise.all(
        batch.map((plan, j) => {
          const outcome = outcomes[from + j]!;
          return cancellable(outcome, undefined, async () => {
            const first = firsts?.[j];
            if (!first) return retryAction(input, plan, outcome, 0, true);
            if ('receipt' in first) return recordDelivered(outcome, first.receipt);
            if (await afterFailedFirst(input, outcome, first.failed)) await retryAction(input, plan, outcome, 1, true);
          });
        }),
      );
    }),
  );
};

/**
 * Every action's attempts as the dispatch says (`attemptsAs`), until each is delivered or failed
 * for good. `batchIds` tells the batch activities of one call from another's in the same dispatch.
 * With `endsTurn`, a single action tried locally first ends that turn when its first attempt
 * delivers it: true then (the caller ends it otherwise).
 */
export const runActions = async (
  input: DispatchInput,
  plans: readonly ActionPlan[],
  outcomes: readonly ActionOutcome[],
  batchIds = '',
  endsTurn?: TurnArgs,
): Promise<boolean> => {
  // Actions cancelled while they waited for their turn are not attempted at all.
  const open = plans.flatMap((plan, i) => (outcomes[i]!.state === 'cancelled' ? [] : [{ plan, outcome: outcomes[i]! }]));
  if (open.length < plans.length) {
    plans = open.map((o) => o.plan);
    outcomes = open.map((o) => o.outcome);
  }
  if (input.attemptsAs === 'batched') {
    await runBatched(input, plans, outcomes, batchIds);
    return false;
  }
  const localFirst = input.attemptsAs === 'local-first';
  const alone = plans.length === 1 ? endsTurn : undefined;
  const ended = await Promise.all(plans.map((plan, i) => runAction(input, plan, outcomes[i]!, localFirst, alone)));
  return alone !== undefined && ended[0] === true;
};
