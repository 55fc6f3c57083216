import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { createPaceMetrics, noPaceMetrics, PaceMetrics } from './pace-metrics';
import { AlertMetrics, createAlertMetrics, noAlertMetrics } from './alert-metrics';

/** One signal of `POST /api/signals`; `rejected` is one request answered 4xx (nothing of it accepted). */
export type SignalOutcome = 'accepted' | 'duplicate' | 'rejected' | 'unmatched';
/** `retrying`: an attempt failed with more to come; `failed`: the last one failed. */
export type DeliveryOutcome = 'delivered' | 'failed' | 'retrying';
export type DeliveryKind = 'webhook' | 'broker';
export interface ProjectionLag {
  events: number;
  seconds: number;
}

/**
 * What the rest of the service records; every label value is from a fixed set or from the
 * config (broker types), never from a request. One per process (tests: one per harness), so
 * counters are never shared by accident.
 */
export interface Metrics {
  readonly enabled: boolean;
  /** The page in Prometheus text format, and its content type. */
  render(): Promise<{ contentType: string; body: string }>;
  signals(outcome: SignalOutcome, count?: number): void;
  attempt(kind: DeliveryKind, brokerType: string, outcome: DeliveryOutcome, seconds: number): void;
  deliveryLatency(kind: DeliveryKind, seconds: number): void;
  /** Actions cancelled before they ended (`POST /api/signals/<id>/cancel`). */
  cancelled(kind: DeliveryKind, count: number): void;
  appendDuration(seconds: number): void;
  httpRequest(route: string, method: string, status: number, seconds: number): void;
  /** The read model's distance behind the event store, read at each scrape. */
  projectionLag(source: () => Promise<ProjectionLag>): void;
  /** Each destination's pace under its limit. */
  readonly pace: PaceMetrics;
  /** The alerts raised and what became of them at each sink. */
  readonly alerts: AlertMetrics;
  /** Signals stored but not yet handed to Temporal, read at each scrape (the relay's lag). */
  relayBacklog(source: () => Promise<number>): void;
  readonly registry: Registry;
}

const P = 'action_triggers_';
/** Seconds: 1 ms (an SQLite append, a loopback webhook) to 60 s (a time-out, a retried delivery). */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const LATENCY_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 21600, 86400];
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export const createMetrics = (options: { defaultMetrics?: boolean } = {}): Metrics => {
  const registry = new Registry();
  const registers = [registry];
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  const signals = new Counter({
    name: `${P}signals_total`,
    help: 'Signals by intake outcome (rejected: requests answered 4xx)',
    labelNames: ['outcome'],
    registers,
  });
  const deliveries = new Counter({
    name: `${P}deliveries_total`,
    help: 'Delivery attempts by outcome (retrying: failed with more to come)',
    labelNames: ['kind', 'broker_type', 'outcome'],
    registers,
  });
  const attempts = new Histogram({
    name: `${P}attempt_duration_seconds`,
    help: 'One delivery attempt, from loading the definition to the answer',
    labelNames: ['kind', 'broker_type'],
    buckets: BUCKETS,
    registers,
  });
  const latency = new Histogram({
    name: `${P}delivery_latency_seconds`,
    help: 'From the signal (its occurred_at) to its action delivered',
    labelNames: ['kind'],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const cancels = new Counter({
    name: `${P}deliveries_cancelled_total`,
    help: 'Actions cancelled before they were delivered or failed for good',
    labelNames: ['kind'],
    registers,
  });
  const appends = new Histogram({
    name: `${P}event_store_append_duration_seconds`,
    help: 'One event store append',
    buckets: BUCKETS,
    registers,
  });
  const requests = new Counter({
    name: `${P}http_requests_total`,
    help: 'HTTP requests by route template',
    labelNames: ['route', 'method', 'status'],
    registers,
  });
  const requestSeconds = new Histogram({
    name: `${P}http_request_duration_seconds`,
    help: 'HTTP requests by route template',
    labelNames: ['route', 'method'],
    buckets: BUCKETS,
    registers,
  });
  const backlogSources: Array<() => Promise<number>> = [];
  new Gauge({
    name: `${P}relay_backlog`,
    help: 'Signals stored but not yet handed to Temporal (the relay passes unmatched ones too)',
    registers,
    aggregator: 'max',
    async collect() {
      const counts = await Promise.all(backlogSources.map((s) => s().catch(() => 0)));
      this.set(Math.max(0, ...counts));
    },
  });
  const lagSources: Array<() => Promise<ProjectionLag>> = [];
  // Both gauges read one lag per scrape: the events count is a store query.
  let lagRead: Promise<ProjectionLag> | undefined;
  const readLag = () =>
    (lagRead ??= (async () => {
      const lags = await Promise.all(lagSources.map((s) => s().catch(() => ({ events: 0, seconds: 0 }))));
      setImmediate(() => {
        lagRead = undefined;
      });
      return lags.reduce((a, l) => ({ events: Math.max(a.events, l.events), seconds: Math.max(a.seconds, l.seconds) }), {
        events: 0,
        seconds: 0,
      });
    })());
  // Each API process runs its own projection of the same store: the cluster page shows the worst.
  new Gauge({
    name: `${P}projection_lag_events`,
    help: 'Trigger events the read model has not applied yet',
    registers,
    aggregator: 'max',
    async collect() {
      this.set((await readLag()).events);
    },
  });
  new Gauge({
    name: `${P}projection_lag_seconds`,
    help: 'How long the read model has been behind the event store (0: caught up)',
    registers,
    aggregator: 'max',
    async collect() {
      this.set((await readLag()).seconds);
    },
  });
  return {
    enabled: true,
    registry,
    render: async () => ({ contentType: registry.contentType, body: await registry.metrics() }),
    signals: (outcome, count = 1) => {
      if (count > 0) signals.inc({ outcome }, count);
    },
    attempt: (kind, brokerType, outcome, seconds) => {
      deliveries.inc({ kind, broker_type: brokerType, outcome });
      attempts.observe({ kind, broker_type: brokerType }, seconds);
    },
    deliveryLatency: (kind, seconds) => latency.observe({ kind }, Math.max(0, seconds)),
    cancelled: (kind, count) => {
      if (count > 0) cancels.inc({ kind }, count);
    },
    appendDuration: (seconds) => appends.observe(seconds),
    httpRequest: (route, method, status, seconds) => {
      const m = METHODS.has(method) ? method : 'other';
      requests.inc({ route, method: m, status: String(status) });
      requestSeconds.observe({ route, method: m }, seconds);
    },
    projectionLag: (source) => {
      lagSources.push(source);
    },
    pace: createPaceMetrics(registry, P),
    alerts: createAlertMetrics(registry, P),
    relayBacklog: (source) => {
      backlogSources.push(source);
    },
  };
};

/** `metrics.enabled: false`: records nothing, serves no page. */
export const noMetrics: Metrics = {
  enabled: false,
  registry: new Registry(),
  render: async () => ({ contentType: 'text/plain', body: '' }),
  signals: () => undefined,
  attempt: () => undefined,
  deliveryLatency: () => undefined,
  cancelled: () => undefined,
  appendDuration: () => undefined,
  httpRequest: () => undefined,
  projectionLag: () => undefined,
  pace: noPaceMetrics,
  alerts: noAlertMetrics,
  relayBacklog: () => undefined,
};

/** Seconds since `start` (from `process.hrtime.bigint()`). */
export const secondsSince = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;
