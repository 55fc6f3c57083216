import type { RequestHandler } from 'express';
import { ProjectionRunner } from '../../projections/runner';
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

const signalIndexInfo = async (runner: Pick<ProjectionRunner, 'caughtUp' | 'failure'>) => {
  const failure = runner.failure();
  return { caught_up: await runner.caughtUp().catch(() => false), ...(failure ? { failure } : {}) };
};

/** `GET /readyz`: ready once the read model caught up; dispatch and the signal index are informational. */
export const readinessHandler = (deps: ReadinessDeps): RequestHandler => {
  const dispatchInfo = deps.dispatchInfo && lastKnown(deps.dispatchInfo, { ...DISPATCH_INFO, failed: (error) => ({ error }) });
  return async (_req, res) => {
    const checks: Record<string, boolean> = {};
    const [caughtUp, known, signalIndex] = await Promise.all([
      deps.projection.caughtUp().catch(() => false),
      dispatchInfo?.(),
      deps.signalIndex && signalIndexInfo(deps.signalIndex),
    ]);
    checks.projection = caughtUp;
    const failure = deps.projection.failure();
    const dispatch = dispatchInfo && (known ? { ...known.value, age_ms: known.ageMs } : { temporal: 'unknown' });
    const ready = Object.values(checks).every(Boolean);
    res.status(ready ? 200 : 503).json({
      status: ready ? 'ready' : 'not ready', checks, ...(failure ? { reasons: { projection: failure } } : {}), ...(dispatch ? { dispatch } : {}),
      ...(signalIndex ? { signal_index: signalIndex } : {}),
    });
  };
};
