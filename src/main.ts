import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Server } from 'node:http';
import { ConfigError, loadConfig, policyOf } from './config';
import { openEventStore } from './event-store/open';
import { buildApp } from './http/app';
import { createLogger, Logger } from './logger';
import { buildTriggerInputCodec } from './triggers/codecs';
import { openReadModel } from '../projections/read-model';
import { startProjection } from '../projections/runner';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1']);

const listen = (app: ReturnType<typeof buildApp>, host: string, port: number) =>
  new Promise<Server>((resolve, reject) => {
    const server = app.listen(port, host, (err?: Error) => (err ? reject(err) : resolve(server)));
  });

/** Composition root: config → adapters → projection → app → listen. */
export const start = async (log: Logger) => {
  const config = loadConfig();
  const apiKeys = config.file.api_keys ?? [];
  let host = config.host;
  if (apiKeys.length === 0 && !LOOPBACK_HOSTS.has(host)) {
    log.warn(`no api_keys configured: serving on 127.0.0.1 only, not ${host}`);
    host = '127.0.0.1';
  }
  mkdirSync(config.dataDir, { recursive: true });
  const store = openEventStore(config);
  const readModel = openReadModel(join(config.dataDir, 'read-model.sqlite'));
  const projection = await startProjection(store, readModel, log);
  await projection.ready;
  const app = buildApp({
    store, readModel, projection, log, apiKeys,
    triggerInput: buildTriggerInputCodec(policyOf(config)),
    now: () => new Date(),
    maxBodyBytes: config.limits.maxBodyBytes,
  });
  const server = await listen(app, host, config.port);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  log.info('action-triggers API listening', {
    url: `http://${host}:${port}`, data_dir: config.dataDir, event_store: config.eventStore,
    auth: apiKeys.length === 0 ? 'none configured: open to loopback callers only' : `${apiKeys.length} API key(s)`,
  });
  const stop = async () => {
    await new Promise((r) => server.close(r));
    await projection.stop();
    readModel.close();
    await store.close();
  };
  return { stop, port };
};

if (require.main === module) {
  const log = createLogger((process.env.LOG_LEVEL as 'info') ?? 'info');
  start(log).then(({ stop }) => {
    const shutdown = (signal: string) => {
      log.info('stopping', { signal });
      stop().then(() => process.exit(0), () => process.exit(1));
    };
    process.once('SIGINT', () => shutdown('SIGINT'));
    process.once('SIGTERM', () => shutdown('SIGTERM'));
  }, (e: unknown) => {
    if (e instanceof ConfigError) process.stderr.write(`${e.message}\n`);
    else log.error('failed to start', { error: String(e), stack: (e as Error)?.stack });
    process.exit(1);
  });
}
