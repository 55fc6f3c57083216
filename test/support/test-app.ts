import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configFrom } from '../../src/config';
import type { AppDeps } from '../../src/api/app';
import { startApiRole } from '../../src/api/start-api';
import { EventStore } from '../../src/event-store/port';
import { Logger, silentLogger } from '../../src/kernel/logger';
import type { ReadModelOptions } from '../../src/projections/read-model';
import { openStorage } from '../../src/open-storage';
import type { TemporalSide } from '../../src/open-temporal';
import { Metrics } from '../../src/observability/metrics';

export const tempDir = (prefix = 'at-test-') => mkdtempSync(join(tmpdir(), prefix));

/**
 * The API role (src/api/start-api.ts, as src/main.ts starts it) on a real SQLite event store and read
 * model in a fresh temp dir; with Temporal (src/open-temporal.ts), its relay too. No retention sweeps: the
 * tests that need one start it.
 */
export const startTestApp = async (
  configFile: Record<string, unknown> = {},
  dir = tempDir(),
  temporal?: Pick<TemporalSide, 'dispatch'> & Partial<Pick<TemporalSide, 'startDispatch'>>,
  readModelOptions: ReadModelOptions = {},
  metrics?: Metrics,
  appOverrides: (store: EventStore) => Partial<AppDeps> = () => ({}),
  log: Logger = silentLogger,
) => {
  const config = configFrom(configFile, { DATA_DIR: dir });
  const storage = await openStorage(config, { log: silentLogger, metrics, readModel: true, readModelOptions });
  const { store } = storage;
  const { readModel, projection } = storage.read!;
  const api = await startApiRole({
    config,
    store,
    readModel,
    projection,
    log,
    dispatch: temporal?.dispatch,
    startDispatch: temporal?.startDispatch,
    metrics,
    retention: false,
    overrides: appOverrides(store),
  });
  const close = async (removeDir = true) => {
    await api.stop();
    await storage.close();
    if (removeDir) rmSync(dir, { recursive: true, force: true });
  };
  return { app: api.app, plan: api.plan, store, readModel, projection, signalIndex: api.signalIndex, relay: api.relay, dir, config, close };
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
