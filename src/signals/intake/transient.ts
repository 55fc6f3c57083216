/** gRPC codes that no retry can change: the request itself is wrong (e.g. over Temporal's size limits). */
const PERMANENT_CODES = new Set([3 /* INVALID_ARGUMENT */, 11 /* OUT_OF_RANGE */]);

/**
 * Whether a failed start may work later: everything but a request Temporal refuses as such.
 * Unreachable servers, time-outs, throttling and a missing namespace all count as transient,
 * so nothing accepted is given up because Temporal was away or misconfigured for a while.
 */
export const isTransient = (e: unknown): boolean => {
  for (let err = e, depth = 0; err && typeof err === 'object' && depth < 5; err = (err as { cause?: unknown }).cause, depth++) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'number' && PERMANENT_CODES.has(code)) return false;
  }
  return true;
};
