import type { RequestHandler } from 'express';

/**
 * `GET /healthz`: alive, unless workflow code of this process's worker has run for too long in
 * one call (`stuckMs` > 0: how long). Nothing else can free that thread, so the answer asks for
 * a restart (a container's health check restarts the process); Temporal gives its workflow tasks
 * to a worker that answers.
 */
export const livenessHandler =
  (stuckMs: () => number = () => 0): RequestHandler =>
  (_req, res) => {
    const ms = stuckMs();
    // A probe's answer, as /readyz's: not a problem document.
    res.status(ms === 0 ? 200 : 503).json(
      ms === 0
        ? { status: 'ok' }
        : {
            status: 'stuck',
            reason: `workflow code has run for ${Math.floor(ms / 1000)} s in one call; every workflow of this worker waits for it: restart the process`,
          },
    );
  };
