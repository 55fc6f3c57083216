import type { RequestHandler } from 'express';
import { ProjectionRunner } from '../projections/runner';
import { lastKnown } from '../observability/last-known';

export interface ReadinessDeps {
  readonly projection: Pick<ProjectionRunner, 'caughtUp' | 'failure'>;
  /** What `/readyz` reports of dispatch (Temporal reachable, the backlog); it never makes the API unready. */
  readonly dispatchInfo?: () => Promise<Record<string, unknown>>;
  /** The signal index (GET /api/signals): reported, and it never makes the API unready (intake does not need it). */
  readonly signalIndex?: Pick<ProjectionRunner, 'caughtUp' | 'failure'>;
}

/**
 * Orchestrators probe readiness with a 1 s time-out. Learning that Temporal is away takes
 * seconds (its client retries until its deadline), so dispatch info is refreshed in the
 * background and `/readyz` waits for it at most this long, then reports the last known value
 * with its age: a Temporal outage never takes the API out of rotation.
 */
export const DISPATCH_INFO = { freshMs: 1000, waitMs: 500, timeoutMs: 5000 };

/**
 * How long `/readyz` waits for the projections' look at the store's head: a store server that
 * hangs (not refusing, just silent) must not hold the probe past its 1 s time-out.
 */
export const STORE_CHECK_MS = 700;

/** `check`, or false with the reason once `STORE_CHECK_MS` passed (the check is then left to finish on its own). */
const withinStoreCheck = async (check: Promise<boolean>): Promise<{ ok: boolean; late?: string }> => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<{ ok: boolean; late: string }>((r) => {
    timer = setTimeout(() => r({ ok: false, late: `the event store did not answer within ${STORE_CHECK_MS} ms` }), STORE_CHECK_MS);
  });
  try {
    return await Promise.race([
      check.then(
        (ok) => ({ ok }),
        () => ({ ok: false }),
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
};

const signalIndexInfo = async (runner: Pick<ProjectionRunner, 'caughtUp' | 'failure'>) => {
  const { ok, late } = await withinStoreCheck(runner.caughtUp());
  const failure = runner.failure() ?? late;
  return { caught_up: ok, ...(failure ? { failure } : {}) };
};

/** `GET /readyz`: ready once the read model caught up; dispatch and the signal index are informational. */
export const readinessHandler = (deps: ReadinessDeps): RequestHandler => {
  const dispatchInfo = deps.dispatchInfo && lastKnown(deps.dispatchInfo, { ...DISPATCH_INFO, failed: (error) => ({ error }) });
  return async (_req, res) => {
    const checks: Record<string, boolean> = {};
    const [projection, known, signalIndex] = await Promise.all([
      withinStoreCheck(deps.projection.caughtUp()),
      dispatchInfo?.(),
      deps.signalIndex && signalIndexInfo(deps.signalIndex),
    ]);
    checks.projection = projection.ok;
    const failure = deps.projection.failure() ?? projection.late;
    const dispatch = dispatchInfo && (known ? { ...known.value, age_ms: known.ageMs } : { temporal: 'unknown' });
    const ready = Object.values(checks).every(Boolean);
    res.status(ready ? 200 : 503).json({
      status: ready ? 'ready' : 'not ready',
      checks,
      ...(failure ? { reasons: { projection: failure } } : {}),
      ...(dispatch ? { dispatch } : {}),
      ...(signalIndex ? { signal_index: signalIndex } : {}),
    });
  };
};
