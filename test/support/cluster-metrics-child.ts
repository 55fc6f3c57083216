// A cluster API process's /metrics alone (forked by test/integration/observability/cluster-metrics.test.ts):
// the test process plays the cluster primary, answering or not.
import express from 'express';
import { clusterMetricsOf } from '../../src/observability/cluster-metrics';
import { createMetrics } from '../../src/observability/metrics';
import { mountMetricsRoute } from '../../src/ops/metrics-route';

const app = express();
mountMetricsRoute(
  app,
  clusterMetricsOf(createMetrics({ defaultMetrics: false }), Number(process.env.ASK_TIMEOUT_MS)),
  () => (_req, _res, next) => next(),
);
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.send!({ type: 'listening', port: typeof address === 'object' && address ? address.port : 0 });
});
