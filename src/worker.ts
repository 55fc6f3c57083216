import { DefaultLogger, makeTelemetryFilterString, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { WorkflowBundleOption } from '@temporalio/worker';
import { createActivities } from './activities';
import { createDynamicValues } from './delivery/dynamic-values';
import { openDestinations } from './destinations/registry';
import { Config } from './config';
import { EventStore } from './event-store/port';
import { Logger } from './kernel/logger';
import type { Tracing } from './observability/tracing';
import { refuseRetiredShapes } from './temporal/retired-shapes';
import { builtWorkflowBundle } from './temporal/workflow-bundles';
import { STUCK_AFTER_MS, withWatchedWorkflowThreads } from './temporal/workflow-threads';
import type { Metrics } from './observability/metrics';

export interface WorkerDeps {
  readonly config: Config;
  /** Shared with this process's client, so signals can start eagerly on this worker. */
  readonly connection: NativeConnection;
  readonly store: EventStore;
  readonly log: Logger;
  /** Prebuilt workflow code (tests bundle once); default: bundled from src/workflows/ at start. */
  readonly workflowBundle?: WorkflowBundleOption;
  readonly env?: NodeJS.ProcessEnv;
  /** On: activity spans, the workflow's spans exported, and the workflow code bundled with its interceptors. */
  readonly tracing?: Tracing;
  readonly metrics?: Metrics;
}

/** Routes the Temporal SDK's own logs into our JSON lines (once per process). */
export const installSdkLogging = (log: Logger, level: 'debug' | 'info' | 'warn' | 'error', metricsAddress?: string) => {
  const sdkLevel = ({ debug: 'DEBUG', info: 'INFO', warn: 'WARN', error: 'ERROR' } as const)[level];
  try {
    Runtime.install({
      logger: new DefaultLogger(sdkLevel, (entry) => {
        const at = entry.level === 'ERROR' ? 'error' : entry.level === 'WARN' ? 'warn' : entry.level === 'INFO' ? 'info' : 'debug';
        // The task token (300 characters of base64 on each failed attempt) means nothing to an operator.
        const { error, taskToken: _taskToken, ...meta } = (entry.meta ?? {}) as Record<string, unknown>;
        log[at](`temporal: ${entry.message}`, { ...meta, ...(error === undefined ? {} : { error: String(error) }) });
      }),
      // The native core's own logs too: forwarded into the same lines, not printed to stderr by Rust.
      telemetryOptions: {
        logging: { forward: {}, filter: makeTelemetryFilterString({ core: sdkLevel, other: 'ERROR' }) },
        // The SDK's own metrics (workflow and activity task latencies, slots, polls) on a page of its own.
        ...(metricsAddress ? { metrics: { prometheus: { bindAddress: metricsAddress } } } : {}),
      },
    });
  } catch {
    /* a runtime is already installed */
  }
};

/** Bundles the workflow code once; workers then start fast. `workflowInterceptorModules`: tracing's, when on. */
export const bundleWorkflows = async (workflowInterceptorModules: string[] = []): Promise<WorkflowBundleOption> => {
  const { bundleWorkflowCode } = await import('@temporalio/worker');
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('./workflows'),
    workflowInterceptorModules,
    logger: quietBundlerLogger,
  });
  return { code };
};

/** How long a stop waits for the attempts under way before it cancels them. */
const SHUTDOWN_GRACE = '5 seconds';

const quietBundlerLogger = {
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: console.error,
  log: () => undefined,
};

/**
 * WORKFLOW_BUNDLE_PATH (a prebuilt bundle without tracing's interceptors) while tracing is off;
 * else the build's bundle when running from the build; else bundled now (~1.5 s, ~150 MB).
 */
const workflowBundleOf = (deps: WorkerDeps): Promise<WorkflowBundleOption> => {
  const modules = deps.tracing?.workflowInterceptorModules ?? [];
  const given = deps.env?.WORKFLOW_BUNDLE_PATH;
  if (given && modules.length === 0) return Promise.resolve({ codePath: given });
  const built = builtWorkflowBundle(modules.length > 0);
  deps.log.info(built ? "workflow code: the build's bundle" : 'workflow code: bundling it now', built ? { path: built } : {});
  return built ? Promise.resolve({ codePath: built }) : bundleWorkflows(modules);
};

/** The Temporal worker: dispatch workflows and their activities on real clients. */
export const startWorker = async (deps: WorkerDeps) => {
  const { config } = deps;
  await refuseRetiredShapes(deps.connection, config.temporal.namespace, config.temporal.taskQueue);
  // Each kind's clients (the webhook transport and its SSRF guard, the broker connections), closed at stop.
  const destinations = openDestinations(config.destinations, { allowPrivateTargets: config.file.allow_private_targets ?? false });
  const dynamicValues = createDynamicValues({
    modulePath: config.file.dynamic_values?.module,
    allowedPaths: config.file.dynamic_values?.allowed_paths ?? [],
    env: deps.env ?? process.env,
    cwd: process.cwd(),
  });
  const workflowBundle = deps.workflowBundle ?? (await workflowBundleOf(deps));
  const { created: worker, watch } = await withWatchedWorkflowThreads(
    () =>
      Worker.create({
        connection: deps.connection,
        namespace: config.temporal.namespace,
        taskQueue: config.temporal.taskQueue,
        workflowBundle,
        ...deps.tracing?.workerOptions,
        activities: createActivities({
          config,
          store: deps.store,
          channels: destinations.channels,
          dynamicValues,
          log: deps.log,
          metrics: deps.metrics,
        }),
        // A stop lets the attempts under way end (a paced one may wait up to SEND_WAIT_MAX_SECS for
        // its slot): cancelled at once, one already sent would count again and be sent twice.
        shutdownGraceTime: SHUTDOWN_GRACE,
        maxConcurrentActivityTaskExecutions: 200,
        maxConcurrentLocalActivityExecutions: 200,
        maxConcurrentWorkflowTaskExecutions: 200,
      }),
    (ms) =>
      deps.log.error(
        `workflow code has run for over ${STUCK_AFTER_MS / 1000} s in one call: every workflow of its thread waits (an endless loop?)`,
        { running_ms: ms },
      ),
  );
  const running = worker.run();
  deps.log.info('Temporal worker running', { task_queue: config.temporal.taskQueue, workflow_threads_watched: watch.threads });
  return {
    worker,
    /** Over STUCK_AFTER_MS: how long a call into workflow code has been running (/healthz then says so); else 0. */
    workflowStuckMs: watch.stuckMs,
    /** The SDK's workflow threads that run without a watchdog thread per call (src/temporal/workflow-threads.ts). */
    workflowThreadsWatched: watch.threads,
    stop: async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running.catch(() => undefined);
      watch.stop();
      await destinations.close();
    },
  };
};
