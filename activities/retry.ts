import type { RetrySettings } from '../src/dispatch/types';

/** 4xx means the request itself is wrong: retrying cannot help, except for these. */
const RETRYABLE_4XX = new Set([408, 425, 429]);

export const isRetryableStatus = (status: number): boolean =>
  status >= 500 || RETRYABLE_4XX.has(status) || status < 400;

/** Exponential backoff with "equal jitter": half the step fixed, half random, capped. */
export const backoffMs = (attempt: number, retry: RetrySettings, random = Math.random): number => {
  const step = Math.min(retry.maxIntervalSecs, retry.initialIntervalSecs * retry.backoffCoefficient ** (attempt - 1)) * 1000;
  return Math.round(step / 2 + random() * (step / 2));
};

/** `Retry-After` as milliseconds (seconds or an HTTP date); undefined when absent or unreadable. */
export const retryAfterMs = (header: string | string[] | undefined, now = Date.now()): number | undefined => {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
};
