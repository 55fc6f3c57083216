import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import type { DispatchActivities } from '../dispatch/activities';
import type { ActionPlan, DeliveryReceipt, DispatchInput, FailureDetails } from '../dispatch/types';
import type { FailedAttempt } from '../dispatch/attempts';
import type { TurnArgs } from '../dispatch/ordering';
import type { PacedAttempt } from '../dispatch/pacing';

/**
 * Extra time Temporal allows an attempt beyond `timeout_secs`. The activity cuts the request at
 * `timeout_secs` itself; Temporal's own timeout only covers a dead worker. Too tight a margin
 * and a worker short of CPU (reading, rendering) overruns it after sending: a duplicate.
 */
export const REPORT_GRACE_SECS = 10;

export type Attempt = (
  activities: Pick<DispatchActivities, 'deliverWebhook' | 'publishToBroker'>,
  attemptsBefore: number,
) => Promise<DeliveryReceipt>;

/** What a failed attempt told the workflow: its message, details and whether another may follow. */
export const failedOf = (err: unknown): FailedAttempt => {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (!(cause instanceof ApplicationFailure)) return { message: cause instanceof Error ? cause.message : String(cause), retryable: true };
  return { message: cause.message, details: cause.details?.[0] as FailureDetails | undefined, retryable: !cause.nonRetryable };
};

/** One attempt of an action through `activities`, with the arguments its dispatch's attempts take. */
export const attemptOf =
  (input: DispatchInput, plan: ActionPlan, ledger: boolean, endsTurn?: TurnArgs, paced?: PacedAttempt): Attempt =>
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
      ...(paced ? { paced } : {}),
    };
    return plan.kind === 'webhook' ? activities.deliverWebhook(args) : activities.publishToBroker(args);
  };
