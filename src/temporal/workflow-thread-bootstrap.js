// Runs first in each of the Temporal SDK's workflow threads (see workflow-threads.ts), then loads
// the SDK's own thread script. Plain CommonJS: a worker thread loads it without ts-node.
const vm = require('node:vm');
const { workerData } = require('node:worker_threads');

// When the current call into workflow code began (ms since the epoch), 0 between calls; the
// process's main thread reads it to notice workflow code that never returns.
const callStarted = new Float64Array(workerData.callStarted);

// The SDK passes its deadlock time-out (`isolateExecutionTimeout`) to every call into the
// workflow sandbox; Node enforces it by starting and joining a thread per call (~110 µs of CPU
// each, several calls per activation, and longer waits on a busy machine). Calls go without it;
// the main thread watches `callStarted` instead.
const runInContext = vm.Script.prototype.runInContext;
vm.Script.prototype.runInContext = function runWithoutWatchdogThread(context, options) {
  if (options === undefined || options.timeout === undefined) return runInContext.call(this, context, options);
  const { timeout: _timeout, ...rest } = options;
  const outermost = callStarted[0] === 0;
  if (outermost) callStarted[0] = Date.now();
  try {
    return runInContext.call(this, context, rest);
  } finally {
    if (outermost) callStarted[0] = 0;
  }
};

require(workerData.sdkThreadScript);
