import type { ActionOutcome, ActionState, DeliveryReceipt, FailureDetails } from './types';
import { boundText, boundWarnings } from './bounds';

/**
 * Attempt accounting, in one place: what the workflow records for an action as its attempts
 * end, and what `GET /api/signals/<id>` shows while one runs. Pure: the workflow imports it.
 */

/** An attempt that did not deliver, as the workflow saw it. */
export interface FailedAttempt {
  message: string;
  details?: FailureDetails;
  retryable: boolean;
}

/**
 * An action once cancelled stays cancelled: an attempt that was already under way when the cancel
 * came may still end, and is not recorded over it.
 */
export const recordDelivered = (outcome: ActionOutcome, receipt: DeliveryReceipt): void => {
  if (outcome.state === 'cancelled') return;
  Object.assign(outcome, {
    state: 'delivered',
    attempts: receipt.attempt,
    statusCode: receipt.statusCode,
    warnings: boundWarnings(receipt.warnings),
    lastError: undefined,
  });
};

export const recordFailed = (outcome: ActionOutcome, f: FailedAttempt, state: ActionState): void => {
  if (outcome.state === 'cancelled') return;
  Object.assign(outcome, {
    state,
    attempts: f.details?.attempt ?? outcome.attempts,
    statusCode: f.details?.statusCode,
    lastError: boundText(f.message),
  });
};

/** Temporal's view of an action's activity while it runs (from describe()'s pending activities). */
export interface PendingActivity {
  attempt: number;
  scheduled: boolean;
  lastFailure?: string;
}

/**
 * An action as shown while its dispatch runs: the workflow's record (attempts that ran before
 * this activity), plus the running activity's own count, which Temporal keeps. An attempt only
 * scheduled (waiting for its retry time) has not run yet.
 */
export const shownProgress = (outcome: ActionOutcome, pending: PendingActivity | undefined) => {
  const open = outcome.state === 'pending' || outcome.state === 'retrying';
  if (!open || !pending) return { state: outcome.state, attempts: outcome.attempts, lastError: outcome.lastError };
  const attempts = outcome.attempts + pending.attempt - (pending.scheduled ? 1 : 0);
  return {
    state: attempts > 1 || outcome.state === 'retrying' ? ('retrying' as const) : outcome.state,
    attempts,
    lastError: pending.lastFailure ?? outcome.lastError,
  };
};
