import cluster from 'node:cluster';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Server } from 'node:http';
import { runApiCluster } from './api-cluster';
import { Config, ConfigError, loadConfig } from './config';
import { patientReads } from './event-store/patient-reads';
import { createHttpServer, listen } from './http/server';
import { collectWhenIdle } from './kernel/idle-collection';
import { createLogger, Logger } from './kernel/logger';
import { findTemporalCli } from './temporal/cli';
import { startDevServer } from './temporal/dev-server';
import { installSdkLogging, startWorker } from './worker';
import { openStorage } from './open-storage';
import { openTemporal } from './open-temporal';
import { startApiRole } from './api/start-api';
import { startTracing } from './observability/tracing';
import { createMetrics, noMetrics } from './observability/metrics';
import { serveWorkerMetrics } from './ops/worker-metrics';

export type Role = 'all' | 'api' | 'worker';
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1']);

/** TEMPORAL_ADDRESS, or a local dev server started here with its state under DATA_DIR. */
const temporalAddress = async (config: Config, log: Logger) => {
  if (config.temporal.address) return { address: config.temporal.address, stop: async () => undefined };
  const cliPath = findTemporalCli(config.temporal.cliPath);
  if (!cliPath) {
    throw new Error('no Temporal CLI found: set TEMPORAL_ADDRESS, or TEMPORAL_CLI_PATH, or install it (bash scripts/install-tools.sh)');
  }
  return startDevServer({
    cliPath,
    dbFile: join(config.dataDir, 'temporal.sqlite'),
    port: config.temporal.devServerPort,
    uiPort: config.temporal.uiPort,
    namespace: config.temporal.namespace,
    log,
  });
};

/** Composition root: config → adapters → projection → Temporal → worker and/or API. */
export const start = async (log: Logger, role: Role = 'all', config: Config = loadConfig()) => {
  installSdkLogging(log, config.logLevel === 'info' ? 'warn' : config.logLevel, config.metrics.temporalBindAddress);
  const metrics = config.metrics.enabled ? createMetrics() : noMetrics;
  const apiKeys = config.file.api_keys ?? [];
  let host = config.host;
  if (apiKeys.length === 0 && !LOOPBACK_HOSTS.has(host)) {
    log.warn(`no api_keys configured: serving on 127.0.0.1 only, not ${host}`);
    host = '127.0.0.1';
  }
  mkdirSync(config.dataDir, { recursive: true });
  // Several hosts each on a SQLite store of their own would each accept signals the others never see.
  if (process.env.POSTGRES_URL && config.eventStore !== 'postgres') {
    log.warn(
      `POSTGRES_URL is set but EVENT_STORE is ${config.eventStore}: the event store is ${config.eventStore === 'sqlite' ? 'the SQLite file in DATA_DIR' : config.eventStore}`,
    );
  }
  // The read model answers the API; a worker-only process needs none.
  const storage = await openStorage(config, { log, metrics, readModel: role !== 'worker' });
  const { store } = storage;
  // The worker starts later; its /healthz answers from now on.
  let workflowStuckMs = () => 0;
  const metricsServer =
    role === 'worker' ? await serveWorkerMetrics(metrics, host, config, apiKeys, log, () => workflowStuckMs()) : undefined;
  const stuck = storage.read?.projection.failure();
  if (stuck) log.error('starting with the read model behind the event store; /readyz says not ready', { reason: stuck });
  const temporal = await temporalAddress(config, log);
  const tracing = startTracing();
  const temporalSide = await openTemporal(config, {
    address: temporal.address,
    withWorker: role !== 'api',
    ...(tracing.clientInterceptors ? { clientInterceptors: tracing.clientInterceptors } : {}),
  });
  const { native, dispatch, startDispatch } = temporalSide;
  const worker = native
    ? await startWorker({
        config,
        connection: native,
        store: patientReads(store),
        log,
        env: process.env,
        tracing,
        metrics,
      })
    : undefined;
  if (worker) workflowStuckMs = worker.workflowStuckMs;
  const api = !storage.read
    ? undefined
    : await startApiRole({
        config,
        store,
        ...storage.read,
        log,
        dispatch,
        metrics,
        ...(worker ? { workflowStuckMs: worker.workflowStuckMs } : {}),
        startDispatch,
      });
  let server: Server | undefined;
  let port = config.port;
  if (api) {
    server = await listen(createHttpServer(api.app), host, config.port);
    const address = server.address();
    port = typeof address === 'object' && address ? address.port : config.port;
    log.info('action-triggers API listening', {
      url: `http://${host}:${port}`,
      role,
      pid: process.pid,
      config_file: config.configFile ?? 'none (./action-triggers.config.json not found: defaults)',
      data_dir: config.dataDir,
      event_store: config.eventStore,
      temporal: temporal.address,
      auth: apiKeys.length === 0 ? 'none configured: open to loopback callers only' : `${apiKeys.length} API key(s)`,
    });
  }
  const idle = collectWhenIdle(log);
  const stop = async () => {
    idle.stop();
    api?.eventStreams.endAll(); // an open SSE stream would keep the server from closing
    if (server) await new Promise((r) => server!.close(r));
    await metricsServer?.close();
    await api?.stop();
    await worker?.stop();
    await temporalSide.close();
    await temporal.stop();
    await storage.close();
    await tracing.shutdown();
  };
  return { stop, port };
};

const roleOf = (argv: string[]): Role => {
  const arg = argv.find((a) => a.startsWith('--role='))?.slice('--role='.length) ?? 'all';
  if (arg !== 'all' && arg !== 'api' && arg !== 'worker')
    throw new ConfigError([{ path: 'argv.--role', message: 'must be all, api or worker' }]);
  return arg;
};

const runProcess = (log: Logger, role: Role, config: Config) => {
  Promise.resolve()
    .then(() => start(log, role, config))
    .then(
      ({ stop }) => {
        let stopping = false;
        const shutdown = (signal: string) => {
          if (stopping) return;
          stopping = true;
          log.info('stopping', { signal });
          stop().then(
            () => process.exit(0),
            () => process.exit(1),
          );
        };
        process.once('SIGINT', () => shutdown('SIGINT'));
        process.once('SIGTERM', () => shutdown('SIGTERM'));
      },
      (e: unknown) => {
        if (e instanceof ConfigError) process.stderr.write(`${e.message}\n`);
        else log.error('failed to start', { error: String(e), stack: (e as Error)?.stack });
        process.exit(1);
      },
    );
};

if (require.main === module) {
  const log = createLogger((process.env.LOG_LEVEL as 'info') ?? 'info');
  try {
    const role = roleOf(process.argv);
    const config = loadConfig();
    // A process the cluster primary forked is one of the API processes itself.
    const processes = cluster.isWorker ? 1 : config.apiProcesses;
    if (processes > 1 && role !== 'api') throw new ConfigError([{ path: 'env.API_PROCESSES', message: 'more than 1 needs --role=api' }]);
    if (processes > 1) runApiCluster(processes, log, __filename);
    else runProcess(log, role, config);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    process.stderr.write(`${e.message}\n`);
    process.exit(1);
  }
}
