import { join } from 'node:path';
import workerThreads from 'node:worker_threads';

/** The SDK's workflow thread script, which Worker.create starts `workflowThreadPoolSize` times. */
export const isSdkWorkflowThread = (script: string | URL) =>
  /[\\/]@temporalio[\\/]worker[\\/]lib[\\/]workflow[\\/]workflow-worker-thread\.js$/.test(String(script));

/** How long one call into workflow code may run before it is reported (the SDK's own time-out was 5 s). */
export const STUCK_AFTER_MS = 5000;

export interface WorkflowThreadWatch {
  /** How long the longest call into workflow code now running has run, in ms (0: none). */
  longestCallMs(): number;
  /** The same, once it is over the bound (0 until then). */
  stuckMs(): number;
  /** How many of the SDK's workflow threads started through the bootstrap. */
  readonly threads: number;
  stop(): void;
}

/** The SDK's own Worker class, and the clocks of the `create` calls now running (the latest gets new threads). */
const SdkWorker = workerThreads.Worker;
const collecting: Float64Array[][] = [];

/** Starts the SDK's workflow threads through workflow-thread-bootstrap.js; any other thread as asked. */
class Bootstrapped extends SdkWorker {
  constructor(script: string | URL, options?: workerThreads.WorkerOptions) {
    const clocks = collecting.at(-1);
    if (options !== undefined || clocks === undefined || !isSdkWorkflowThread(script)) {
      super(script, options);
      return;
    }
    const callStarted = new SharedArrayBuffer(8);
    clocks.push(new Float64Array(callStarted));
    super(join(__dirname, 'workflow-thread-bootstrap.js'), { workerData: { sdkThreadScript: String(script), callStarted } });
  }
}

/**
 * Runs `create` (Worker.create) so that each workflow thread the SDK starts goes through
 * workflow-thread-bootstrap.js: calls into workflow code without a watchdog thread each, and
 * their start times shared with this thread. `onStuck` hears, once per call, of one that has run
 * longer than `stuckAfterMs` (an endless loop in workflow code holds every workflow of the thread).
 */
export const withWatchedWorkflowThreads = async <T>(
  create: () => Promise<T>,
  onStuck: (ms: number) => void,
  stuckAfterMs = STUCK_AFTER_MS,
): Promise<{ created: T; watch: WorkflowThreadWatch }> => {
  const clocks: Float64Array[] = [];
  // The SDK reads `Worker` from the module when it starts its threads, during Worker.create only;
  // calls that overlap share the wrapper, which goes once the last of them returns.
  collecting.push(clocks);
  workerThreads.Worker = Bootstrapped;
  let created: T;
  try {
    created = await create();
  } finally {
    collecting.splice(collecting.indexOf(clocks), 1);
    if (collecting.length === 0) workerThreads.Worker = SdkWorker;
  }
  /** When the oldest call into workflow code now running began (0: none is running). */
  const oldestStart = () => clocks.reduce((oldest, c) => (c[0] !== 0 && (oldest === 0 || c[0]! < oldest) ? c[0]! : oldest), 0);
  const longestCallMs = () => {
    const started = oldestStart();
    return started === 0 ? 0 : Date.now() - started;
  };
  const stuckMs = () => {
    const ms = longestCallMs();
    return ms > stuckAfterMs ? ms : 0;
  };
  // Once per stuck call: a call is known by when it started.
  let reported = 0;
  const timer = setInterval(
    () => {
      const started = oldestStart();
      const ms = started === 0 ? 0 : Date.now() - started;
      if (ms > stuckAfterMs && started !== reported) {
        reported = started;
        onStuck(ms);
      }
    },
    Math.min(1000, stuckAfterMs),
  ).unref();
  return { created, watch: { longestCallMs, stuckMs, threads: clocks.length, stop: () => clearInterval(timer) } };
};
