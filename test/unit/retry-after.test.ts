import { retryAfterMs } from '../../src/destinations/webhook/retry-after';
import { delayAfter } from '../../src/dispatch/retry-schedule';
import type { RetrySettings } from '../../src/dispatch/types';

const now = Date.parse('2026-03-01T12:00:00Z');
/** 5 s doubling to 10 s: the bounds a receiver's Retry-After is held within. */
const retry: RetrySettings = { initialIntervalSecs: 5, backoffCoefficient: 2, maxIntervalSecs: 10, maxAttempts: 20 };
/** The wait after attempt 1 for a given Retry-After header (random fixed, so backoff is 5 s). */
const waitFor = (header: string) => delayAfter(1, retry, retryAfterMs(header, now), () => 1);

test('Retry-After is read as delta-seconds or an HTTP date in any of its three forms; a past date is now', () => {
  expect(retryAfterMs('7', now)).toBe(7000);
  expect(retryAfterMs(' 7 ', now)).toBe(7000);
  expect(retryAfterMs(['3', '9'], now)).toBe(3000);
  expect(retryAfterMs('Sun, 01 Mar 2026 12:00:30 GMT', now)).toBe(30_000);
  expect(retryAfterMs('Sunday, 01-Mar-26 12:00:30 GMT', now)).toBe(30_000);
  expect(retryAfterMs('Sun Mar  1 12:00:30 2026', now)).toBe(30_000);
  expect(retryAfterMs('0', now)).toBe(0);
  expect(retryAfterMs('Thu, 01 Jan 1970 00:00:00 GMT', now)).toBe(0);
  expect(retryAfterMs('Fri, 31 Dec 9999 23:59:59 GMT', now)).toBeGreaterThan(200 * 365 * 86_400_000);
});

test('a signed, fractional or garbled Retry-After is unreadable, not a date: ignored', () => {
  for (const value of ['-5', '+5', '1.5', '5s', 'soon', '2026-03-01', '12:00', '', '   ', '0x10', '1e3']) {
    expect({ value, ms: retryAfterMs(value, now) }).toEqual({ value, ms: undefined });
  }
  expect(retryAfterMs(undefined, now)).toBeUndefined();
});

test('a Retry-After of now or the past waits the backoff, never 0 (0 would end the retries in Temporal)', () => {
  expect(waitFor('0')).toBe(5000);
  expect(waitFor('1')).toBe(5000);
  expect(waitFor('Thu, 01 Jan 1970 00:00:00 GMT')).toBe(5000);
  // Later attempts: the backoff has grown, and "now" does not shorten it.
  expect(delayAfter(3, retry, 0, () => 1)).toBe(10_000);
});

test('a Retry-After beyond max_interval_secs waits max_interval_secs', () => {
  expect(waitFor('99999999')).toBe(10_000);
  expect(waitFor('9'.repeat(400))).toBe(10_000);
  expect(waitFor('Fri, 31 Dec 9999 23:59:59 GMT')).toBe(10_000);
});

test('a Retry-After within the bounds is honoured as it is', () => {
  expect(waitFor('7')).toBe(7000);
  expect(waitFor('Sun, 01 Mar 2026 12:00:08 GMT')).toBe(8000);
});

test('an unreadable Retry-After (negative, garbage) leaves the backoff', () => {
  expect(waitFor('-5')).toBe(delayAfter(1, retry, undefined, () => 1));
  expect(waitFor('soon')).toBe(5000);
  expect(delayAfter(3, retry, retryAfterMs('-5', now), () => 0)).toBe(5000); // 20 s capped at 10 s, half fixed
});

test('the backoff bounds it from below even when initial_interval_secs exceeds max_interval_secs; never under 1 ms', () => {
  expect(delayAfter(1, { ...retry, initialIntervalSecs: 30 }, 0, () => 1)).toBe(10_000);
  const tiny: RetrySettings = { initialIntervalSecs: 0.0001, backoffCoefficient: 1, maxIntervalSecs: 0.0001, maxAttempts: 3 };
  expect(delayAfter(1, tiny, 0)).toBe(1);
  expect(delayAfter(1, tiny, undefined, () => 0)).toBe(1);
});
