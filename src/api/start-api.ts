import cluster from 'node:cluster';
import { breakerSettingsOf, Config, planningOf, policyOf } from '../config';
import type { EventStore } from '../event-store/port';
import type { Logger } from '../kernel/logger';
import type { Metrics } from '../observability/metrics';
import { clusterMetricsOf } from '../observability/cluster-metrics';
import { ReadModel } from '../projections/read-model';
import { ProjectionRunner, signalProjectionOf, startProjection } from '../projections/runner';
import { planDispatch } from '../model/signals/matching';
import { matchSignal } from '../signals/intake/match';
import type { SignalEnvelope } from '../dispatch/types';
import type { DispatchClient } from '../temporal/dispatch-client';
import { startRelay } from '../signals/intake/relay';
import { startRetention } from '../signals/intake/retention';
import { dispatchInfo, relayBacklogOf } from '../signals/intake/backlog';
import { createEventStreams } from '../audit/stream';
import { buildTriggerInputCodec, buildTriggerPatchCodec } from '../model/triggers/codecs';
import { previewOptionsOf } from '../triggers/dry-run';
import { AppDeps, buildApp } from './app';
import { startAlerting } from '../alerts/alerting';
import { createAlertStreams } from '../alerts/routes';
import { sinkViewOf } from '../alerts/sink-view';
import { createSinks } from '../alerts/sinks';
import { createDynamicValues } from '../delivery/dynamic-values';
import { createDefinitionAt } from '../model/triggers/definition-at';
import { noAlertMetrics } from '../observability/alert-metrics';

/** What the API role runs on: adapters its caller opened (src/main.ts on the configured ones, tests on temp files). */
export interface ApiAdapters {
  readonly config: Config;
  readonly store: EventStore;
  readonly readModel: ReadModel;
  /** The trigger projection, already caught up. */
  readonly projection: ProjectionRunner;
  readonly log: Logger;
  /** Absent: this process has no Temporal; the routes that need it answer 503. */
  readonly dispatch?: DispatchClient;
  /** How the relay starts a dispatch (default `dispatch.start`). */
  readonly startDispatch?: DispatchClient['start'];
  readonly metrics?: Metrics;
  /** Raises the alerts and sends them to the config's sinks, in one process of those on the store (default true). */
  readonly alerts?: boolean;
  /** Removes signals past `signals.retention_days` every 10 minutes (default true). */
  readonly retention?: boolean;
  /** This process's worker's stuck workflow code, for /healthz (absent: no worker here). */
  readonly workflowStuckMs?: () => number;
  /** Replaces some of the app's dependencies (tests count or slow the store). */
  readonly overrides?: Partial<AppDeps>;
}

/**
 * The API role: the signal index, the relay to Temporal (with a dispatch client), retention and
 * the HTTP app, all from the config. Matching is intake's: a signal's plan comes from the read
 * model here, not from the Temporal client.
 */
export const startApiRole = async (a: ApiAdapters) => {
  const { config, store, readModel, log, dispatch } = a;
  const policy = policyOf(config);
  const relay = dispatch && startRelay({ store, log, start: a.startDispatch ?? dispatch.start, giveTurn: dispatch.giveTurn });
  if (relay) a.metrics?.relayBacklog(() => relayBacklogOf(store));
  const signalIndex = await startProjection(store, signalProjectionOf(readModel), log, 'signal');
  const retention = a.retention === false ? undefined : startRetention(store, config.signalRetentionMs, log, readModel);
  const eventStreams = createEventStreams(store, log);
  const alertStreams = createAlertStreams(store, log);
  const alerting = a.alerts === false ? undefined : startAlertsOf(a);
  const planning = planningOf(config);
  const plan = (signal: SignalEnvelope) => planDispatch(readModel, planning, signal);
  const app = buildApp({
    store,
    readModel,
    projection: a.projection,
    signalIndex,
    log,
    dispatch,
    eventStreams,
    alertStreams,
    alertSinks: config.alerts.sinks.map(sinkViewOf),
    policy,
    plan,
    match: matchSignal(readModel, planning),
    apiKeys: config.file.api_keys ?? [],
    triggerInput: buildTriggerInputCodec(policy),
    triggerPatch: buildTriggerPatchCodec(policy),
    now: () => new Date(),
    preview: previewOptionsOf(config),
    maxBodyBytes: config.limits.maxBodyBytes,
    keepUnmatchedInstances: config.keepUnmatchedInstances,
    ...(dispatch ? { dispatchInfo: () => dispatchInfo(store, dispatch, relay) } : {}),
    // In an API process the cluster primary forked, /metrics answers for every process.
    metrics: a.metrics && cluster.isWorker && a.metrics.enabled ? clusterMetricsOf(a.metrics) : a.metrics,
    ...(a.workflowStuckMs ? { workflowStuckMs: a.workflowStuckMs } : {}),
    admin: {
      temporalUiUrl: config.file.temporal_ui_url ?? `http://127.0.0.1:${config.temporal.uiPort}`,
      namespace: config.temporal.namespace,
    },
    ...a.overrides,
  });
  const stop = async () => {
    eventStreams.endAll();
    alertStreams.endAll();
    await alerting?.stop();
    await relay?.stop();
    await retention?.stop();
    await signalIndex.stop();
  };
  return { app, plan, relay, signalIndex, eventStreams, stop };
};

/** The alerts of the config: its sinks, the breaker's threshold, the admin's address for links. */
const startAlertsOf = ({ config, store, log, metrics }: ApiAdapters) => {
  const values = createDynamicValues({
    modulePath: config.file.dynamic_values?.module,
    allowedPaths: config.file.dynamic_values?.allowed_paths ?? [],
    env: process.env,
    cwd: process.cwd(),
  });
  const sinks = createSinks(config.alerts.sinks, values);
  const counted = metrics?.alerts ?? noAlertMetrics;
  const alerting = startAlerting({
    store,
    log,
    sinks,
    definitionAt: createDefinitionAt(store),
    destinations: config.destinations,
    backlogThreshold: config.alerts.backlogThreshold,
    rules: {
      threshold: breakerSettingsOf(config).consecutiveFailures,
      failingAtPercent: config.alerts.failingAtPercent,
      adminUrl: config.alerts.adminUrl ?? '/admin/',
    },
    outcomes: { ...counted, raised: (alert) => counted.raised(alert.type) },
  });
  return {
    stop: async () => {
      await alerting.stop();
      await Promise.all(sinks.map((s) => s.close?.()));
    },
  };
};
