/** RFC 9110 delta-seconds: digits only (no sign, no fraction). */
const DELTA_SECONDS = /^\d+$/;
/** An HTTP-date starts with a day name (IMF-fixdate, RFC 850, asctime): anything else is not read as a date. */
const HTTP_DATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? /;

/**
 * `Retry-After` as milliseconds from `now` (seconds or an HTTP date); a date already past is 0.
 * Undefined when absent or unreadable (a sign, a fraction, anything not an HTTP date): then the
 * backoff applies. How long we actually wait is bounded by the retry schedule (`delayAfter`).
 */
export const retryAfterMs = (header: string | string[] | undefined, now = Date.now()): number | undefined => {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (value === undefined || value === '') return undefined;
  if (DELTA_SECONDS.test(value)) return Number(value) * 1000;
  if (!HTTP_DATE.test(value)) return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
};
