import { ActivityFailure, proxyActivities, proxyLocalActivities, sleep } from '@temporalio/workflow';
import type { DispatchActivities } from '../dispatch/activities';
import type { ActionOutcome, ActionPlan, DispatchInput, FirstAttempt, RetrySettings } from '../dispatch/types';
import { FIRST_ATTEMPT_BATCH } from '../dispatch/bounds';
import { FailedAttempt, recordDelivered, recordFailed } from '../dispatch/attempts';
import { millis, retryPolicyOf } from '../dispatch/retry-schedule';
import type { TurnArgs } from '../dispatch/ordering';
import { cancellable } from './cancellation';
import { attemptOf, failedOf, REPORT_GRACE_SECS } from './attempt-of';
import { runPaced } from './paced';

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

/** The actions to destinations without a limit. */
const runFree = async (
  input: DispatchInput,
  plans: readonly ActionPlan[],
  outcomes: readonly ActionOutcome[],
  batchIds: string,
  endsTurn?: TurnArgs,
): Promise<boolean> => {
  if (plans.length === 0) return false;
  if (input.attemptsAs === 'batched') {
    await runBatched(input, plans, outcomes, batchIds);
    return false;
  }
  const localFirst = input.attemptsAs === 'local-first';
  const alone = plans.length === 1 ? endsTurn : undefined;
  const ended = await Promise.all(plans.map((plan, i) => runAction(input, plan, outcomes[i]!, localFirst, alone)));
  return alone !== undefined && ended[0] === true;
};

/**
 * Every action's attempts as the dispatch says (`attemptsAs`), until each is delivered or failed
 * for good; an action to a destination with a limit waits for its place before each attempt
 * (paced.ts), never in a batch. `batchIds` tells the batch activities of one call from another's
 * in the same dispatch. With `endsTurn`, a single action tried locally first ends that turn when
 * its first attempt delivers it: true then (the caller ends it otherwise).
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
  const paced = open.filter((o) => o.plan.pace !== undefined);
  const free = paced.length === 0 ? open : open.filter((o) => o.plan.pace === undefined);
  if (free.length < plans.length) {
    plans = free.map((o) => o.plan);
    outcomes = free.map((o) => o.outcome);
  }
  const ledger = input.attemptsAs !== 'activities';
  const [ended] = await Promise.all([
    runFree(input, plans, outcomes, batchIds, paced.length === 0 ? endsTurn : undefined),
    ...paced.map((o) => cancellable(o.outcome, undefined, () => runPaced(input, o.plan, o.outcome, ledger))),
  ]);
  return ended;
};
