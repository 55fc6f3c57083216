import { Server } from 'node:http';
import { Config } from '../config';
import { ApiKeyEntry, createAuth } from '../http/auth';
import { createHttpServer, listen } from '../http/server';
import { Logger } from '../kernel/logger';
import { Metrics } from '../observability/metrics';
import { buildMetricsApp } from './metrics-route';

/**
 * `--role=worker` has no API port: with METRICS_PORT set it serves `/healthz` (for a container's
 * health check) and, with metrics on, `/metrics` there, on the same host and with the same keys
 * (`metrics:read`) as the API would.
 */
export const serveWorkerMetrics = async (
  metrics: Metrics,
  host: string,
  config: Config,
  apiKeys: readonly ApiKeyEntry[],
  log: Logger,
  workflowStuckMs: () => number,
) => {
  if (config.metrics.workerPort === undefined) return undefined;
  const server: Server = await listen(
    createHttpServer(buildMetricsApp(metrics, createAuth(apiKeys), workflowStuckMs)),
    host,
    config.metrics.workerPort,
  );
  const address = server.address();
  log.info('worker metrics listening', {
    url: `http://${host}:${typeof address === 'object' && address ? address.port : config.metrics.workerPort}`,
    paths: metrics.enabled ? ['/healthz', '/metrics'] : ['/healthz'],
  });
  return { close: () => new Promise<void>((r) => server.close(() => r())) };
};
