import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import { createDatabase } from '../../../../test/support/brokers/postgres';
import { startServerProcess, stopServerProcess } from '../../../../test/support/server-process';
import { createClient, type Condition } from '../../src/index.ts';
import { migrate } from '../../src/outbox/migrations.ts';
import { clientNodeServers } from './servers';

/** The service's build as a process of its own (dist/src/main.js), on the shared Temporal server, with a data folder and task queue of its own. */
export const startService = async (config: Record<string, unknown> = {}) => {
  const dir = mkdtempSync(join(tmpdir(), 'at-client-node-service-'));
  const file = join(dir, 'config.json');
  // Receivers listen on loopback; retries are quick.
  const retry = { initial_interval_secs: 0.2, backoff_coefficient: 2, max_interval_secs: 1, max_attempts: 5 };
  writeFileSync(file, JSON.stringify({ allow_private_targets: true, retry, ...config }));
  const env = {
    DATA_DIR: join(dir, 'data'),
    ACTION_TRIGGERS_CONFIG: file,
    TEMPORAL_ADDRESS: clientNodeServers().temporalAddress,
    TEMPORAL_TASK_QUEUE: `client-node-${randomUUID()}`,
  };
  let server = await startServerProcess(env);
  const url = server.url;
  return {
    url,
    output: () => server.output(),
    /** Stops the service for `ms` (its address refuses connections), then starts it again on the same port and data. */
    stopFor: async (ms: number) => {
      await stopServerProcess(server);
      await new Promise((r) => setTimeout(r, ms));
      server = await startServerProcess({ ...env, PORT: new URL(url).port });
    },
    stop: async () => {
      await stopServerProcess(server);
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

/** A database of the shared cluster for one test file, its outbox migrated; a pool on it. */
export const outboxDatabase = async (name: string) => {
  const url = await createDatabase(clientNodeServers().postgres, `${name}_${process.pid}`);
  const pool = new Pool({ connectionString: url, max: 8 });
  await migrate(pool);
  return { url, pool };
};

/** A transition condition: `instance.status` went from pending to paid. */
export const BECAME_PAID: Condition = { 'instance.status': { $changed: { from: 'pending', to: 'paid' } } };

/** A trigger on `post_save` of `contentType` (`app.model`) posting `payload` to `url`, when `condition` holds if given. */
export const triggerOnSave = (
  baseUrl: string,
  contentType: string,
  url: string,
  payload: Record<string, string>,
  condition?: Condition,
) => {
  const [app_label, model_name] = contentType.split('.') as [string, string];
  return createClient({ baseUrl }).triggers.create({
    config_signals: [{ signal: 'post_save' }],
    content_types: [{ app_label, model_name }],
    webhooks: [{ url, http_method: 'POST' }],
    active: true,
    payload,
    ...(condition ? { condition } : {}),
  });
};
