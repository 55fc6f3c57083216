import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configFrom, policyOf } from '../../src/config';
import { openSqliteStore } from '../../src/event-store/sqlite';
import { AppDeps, buildApp } from '../../src/api/app';
import { EventStore } from '../../src/event-store/port';
import { ApiKeyEntry } from '../../src/http/auth';
import { silentLogger } from '../../src/kernel/logger';
import { previewOptionsOf } from '../../src/triggers/api/dry-run';
import { buildTriggerInputCodec, buildTriggerPatchCodec } from '../../src/triggers/model/codecs';
import { openReadModel, ReadModelOptions } from '../../projections/read-model';
import { signalProjectionOf, startProjection } from '../../projections/runner';
import { DispatchClient } from '../../src/temporal/dispatch-client';
import { startRelay } from '../../src/signals/intake/relay';
import { dispatchInfo } from '../../src/signals/intake/backlog';
import { Metrics } from '../../src/observability/metrics';
import { withAppendTiming } from '../../src/observability/timed-store';

export const tempDir = (prefix = 'at-test-') => mkdtempSync(join(tmpdir(), prefix));

/** The HTTP app on a real SQLite event store and read model in a fresh temp dir. */
export const startTestApp = async (configFile: Record<string, unknown> = {}, dir = tempDir(), dispatch?: DispatchClient,
  readModelOptions: ReadModelOptions = {}, metrics?: Metrics, appOverrides: (store: EventStore) => Partial<AppDeps> = () => ({})) => {
  const config = configFrom(configFile, { DATA_DIR: dir });
  const sqlite = openSqliteStore(join(dir, 'events.sqlite'));
  const store = metrics ? withAppendTiming(sqlite, metrics) : sqlite;
  const readModel = openReadModel(join(dir, 'read-model.sqlite'), readModelOptions);
  const projection = await startProjection(store, readModel, silentLogger);
  await projection.ready;
  const signalIndex = await startProjection(store, signalProjectionOf(readModel), silentLogger, 'signal');
  metrics?.projectionLag(projection.lag);
  const app = buildApp({
    store, readModel, projection, signalIndex, log: silentLogger, dispatch,
    apiKeys: (config.file.api_keys ?? []) as ApiKeyEntry[],
    policy: policyOf(config),
    triggerInput: buildTriggerInputCodec(policyOf(config)),
    triggerPatch: buildTriggerPatchCodec(policyOf(config)),
    now: () => new Date(),
    preview: previewOptionsOf(config),
    maxBodyBytes: config.limits.maxBodyBytes,
    metrics,
    ...(dispatch ? { dispatchInfo: () => dispatchInfo(store, dispatch, relay) } : {}),
    ...appOverrides(store),
  });
  // As in main.ts: stored signals reach Temporal through the relay.
  const relay = dispatch && startRelay({ store, log: silentLogger, start: dispatch.start });
  const close = async (removeDir = true) => {
    await relay?.stop();
    await projection.stop();
    await signalIndex.stop();
    readModel.close();
    await store.close();
    if (removeDir) rmSync(dir, { recursive: true, force: true });
  };
  return { app, store, readModel, projection, signalIndex, relay, dir, close };
};

/** A valid trigger body; override fields per test. */
export const aTrigger = (over: Record<string, unknown> = {}) => ({
  config_signals: [{ signal: 'post_save' }],
  content_types: [{ app_label: 'shop', model_name: 'order' }],
  webhooks: [{ url: 'https://hooks.example.com/orders', http_method: 'POST', headers: { 'x-source': 'shop' }, timeout_secs: 2.5 }],
  msg_broker_queues: [{ name: 'orders', parameters: { queue: 'orders' } }],
  active: true,
  payload: { order: '{{ instance.id }}', note: 'order {{ instance.number }} saved' },
  ...over,
});

export const BROKERS_CONFIG = {
  brokers: { orders: { broker_type: 'rabbitmq', conn_details: { url: 'amqp://guest:guest@127.0.0.1:5672' }, params: { queue: 'orders' } } },
  dynamic_values: { allowed_paths: ['env.WEBHOOK_TOKEN', 'secrets.token'] },
};
