import { randomUUID } from 'node:crypto';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { configFrom } from '../../src/config';
import { createLogger, Logger, silentLogger } from '../../src/kernel/logger';
import { openTemporal } from '../../src/open-temporal';
import { ensureSearchAttributes } from '../../src/temporal/search-attributes';
import { installSdkLogging, startWorker } from '../../src/worker';
import { startTestApp, tempDir } from './test-app';
import { testServers } from './servers';
import type { Metrics } from '../../src/observability/metrics';

/** What the Temporal SDK logged in this test process (WARN and up), for tests that check logs. */
export const sdkLogLines: string[] = [];
let runtimeInstalled = false;
const captureRuntimeLogs = () => {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  installSdkLogging(
    createLogger('warn', (line) => {
      sdkLogLines.push(line);
      // To read them after a run: AT_TEST_SDK_LOG=<file> npx jest
      if (process.env.AT_TEST_SDK_LOG) appendFileSync(process.env.AT_TEST_SDK_LOG, `${expect.getState().testPath ?? ''} ${line}`);
    }),
    'warn',
  );
};

/** Fast retries for tests: 0.2 s doubling to 1 s. */
export const TEST_RETRY = { initial_interval_secs: 0.2, backoff_coefficient: 2, max_interval_secs: 1, max_attempts: 5 };

/**
 * The API and a worker on the shared Temporal dev server and RabbitMQ, with a fresh task queue
 * and fresh data dir: isolation by fresh ids, not by wiping shared state.
 */
export const startDispatchHarness = async (
  configFile: Record<string, unknown>,
  options: { worker?: boolean; env?: NodeJS.ProcessEnv; log?: Logger; metrics?: Metrics; turnCheckSecs?: number } = {},
) => {
  captureRuntimeLogs();
  const servers = testServers();
  const taskQueue = `test-${randomUUID()}`;
  // The test receiver listens on loopback: allowed unless a test says otherwise (API and worker alike).
  const file = { retry: TEST_RETRY, allow_private_targets: true, ...configFile };
  const config = configFrom(file, { TEMPORAL_TASK_QUEUE: taskQueue, TEMPORAL_ADDRESS: servers.temporalAddress });
  const temporal = await openTemporal(config, {
    address: servers.temporalAddress,
    withWorker: options.worker !== false,
    ...(options.turnCheckSecs ? { turnCheckSecs: options.turnCheckSecs } : {}),
  });
  // Tests read visibility before any start: the search attributes must exist from the beginning.
  await ensureSearchAttributes(temporal.connection, 'default');
  const { client, dispatch } = temporal;
  const dir = tempDir();
  const t = await startTestApp(file, dir, temporal, {}, options.metrics);
  const worker =
    temporal.native === undefined
      ? undefined
      : await startWorker({
          config,
          connection: temporal.native,
          store: t.store,
          log: options.log ?? silentLogger,
          workflowBundle: { codePath: servers.workflowBundlePath },
          env: options.env,
          metrics: options.metrics,
        });
  return {
    ...t,
    client,
    dispatch,
    taskQueue,
    config,
    dir,
    worker,
    close: async () => {
      await worker?.stop();
      await t.close();
      await temporal.close();
    },
  };
};

/**
 * The API on the shared Temporal dev server with no worker in this process, and the environment
 * for a worker process of its own (`startWorkerProcess`), which tests can kill: same data dir,
 * task queue and config (test retries, private targets allowed, plus `configFile`).
 */
export const startHarnessForWorkerProcess = async (configFile: Record<string, unknown> = {}) => {
  const h = await startDispatchHarness(configFile, { worker: false });
  const path = join(h.dir, 'worker-config.json');
  writeFileSync(path, JSON.stringify({ retry: TEST_RETRY, allow_private_targets: true, ...configFile }));
  const workerEnv: Record<string, string> = {
    DATA_DIR: h.dir,
    ACTION_TRIGGERS_CONFIG: path,
    TEMPORAL_ADDRESS: testServers().temporalAddress,
    TEMPORAL_TASK_QUEUE: h.taskQueue,
    WORKFLOW_BUNDLE_PATH: testServers().workflowBundlePath,
  };
  return { h, workerEnv };
};
