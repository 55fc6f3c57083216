import type { RetrySettings } from './types';

/**
 * When to try an action again: the one place that decides. The activity asks `delayAfter` on
 * every retryable failure (Temporal then waits exactly that: `nextRetryDelay`); the workflow's
 * retry policy (`retryPolicyOf`) applies the same schedule when an attempt ends with no word
 * from the activity (a dead worker, Temporal's own time-out). Pure: the workflow imports it.
 */

/** 4xx means the request itself is wrong: retrying cannot help, except for these. */
const RETRYABLE_4XX = new Set([408, 425, 429]);

export const isRetryableStatus = (status: number): boolean => status >= 500 || RETRYABLE_4XX.has(status) || status < 400;

/** Durations in milliseconds (a number is milliseconds to Temporal). */
export const millis = (secs: number) => Math.ceil(secs * 1000);

/** Exponential backoff with "equal jitter": half the step fixed, half random, capped. */
export const backoffMs = (attempt: number, retry: RetrySettings, random = Math.random): number => {
  const step = Math.min(retry.maxIntervalSecs, retry.initialIntervalSecs * retry.backoffCoefficient ** (attempt - 1)) * 1000;
  return Math.round(step / 2 + random() * (step / 2));
};

/**
 * The wait after failed attempt `attempt`: backoff, lengthened by the receiver's `Retry-After`
 * up to `max_interval_secs`. A receiver can ask us to wait longer, never to retry sooner than
 * our own schedule: Temporal takes `nextRetryDelay` as it is, unbounded by the policy's maximum
 * interval, and a delay of 0 ends the retries there (it is read as no interval at all), so a
 * "now" from the receiver would otherwise end the delivery. Never below 1 ms, for that reason too.
 */
export const delayAfter = (attempt: number, retry: RetrySettings, retryAfterMs?: number, random = Math.random): number => {
  const backoff = Math.max(1, backoffMs(attempt, retry, random));
  if (retryAfterMs === undefined) return backoff;
  return Math.max(backoff, Math.min(millis(retry.maxIntervalSecs), Math.ceil(retryAfterMs)));
};

/** Temporal's retry policy for an action, when `attemptsBefore` attempts already ran elsewhere. */
export const retryPolicyOf = (retry: RetrySettings, attemptsBefore = 0) => ({
  initialInterval: millis(retry.initialIntervalSecs),
  backoffCoefficient: retry.backoffCoefficient,
  maximumInterval: millis(retry.maxIntervalSecs),
  maximumAttempts: Math.max(1, retry.maxAttempts - attemptsBefore),
});
