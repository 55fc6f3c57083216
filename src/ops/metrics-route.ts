import express, { Express, RequestHandler } from 'express';
import { Scope } from '../config';
import { methodGuard } from '../http/mount';
import { sendError } from '../http/problem';
import { livenessHandler } from './liveness';
import { Metrics } from '../observability/metrics';

/**
 * `GET /metrics`: the Prometheus page, behind `metrics:read` (open to loopback callers when no
 * API keys are configured, as every route). Absent when metrics are off.
 */
export const mountMetricsRoute = (app: Express, metrics: Metrics, requireScope: (scope: Scope) => RequestHandler) => {
  if (!metrics.enabled) return;
  app
    .route('/metrics')
    .get(requireScope('metrics:read'), async (_req, res) => {
      try {
        const page = await metrics.render();
        res.type(page.contentType).send(page.body);
      } catch (e) {
        // The cluster primary did not answer (it is stopping, or a process hung).
        sendError(res, { _tag: 'Unavailable', reason: `metrics are unavailable: ${(e as Error).message}` });
      }
    })
    .all(methodGuard(['GET']));
};

/**
 * The page and a liveness answer, for a process with no API (`--role=worker` on METRICS_PORT),
 * guarded as the API is; `/healthz` is open, as the API's is.
 */
export const buildMetricsApp = (
  metrics: Metrics,
  auth: { requireScope: (scope: Scope) => RequestHandler; openModeGuard: RequestHandler },
  workflowStuckMs?: () => number,
) => {
  const app = express();
  app.disable('x-powered-by');
  app
    .route('/healthz')
    .get(livenessHandler(workflowStuckMs))
    .all(methodGuard(['GET']));
  app.use(auth.openModeGuard);
  mountMetricsRoute(app, metrics, auth.requireScope);
  app.use((req, res) => sendError(res, { _tag: 'NoRoute', method: req.method, path: req.path }));
  return app;
};
