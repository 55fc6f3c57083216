// Bench experiment only (BENCH_NODE_FLAGS='-r ./bench/sdk-experiments/no-vm-timeout.js'): in the
// Temporal SDK's workflow thread, call into the workflow sandbox without `timeout`. With a timeout
// Node starts a watchdog thread and event loop for every call (nodejs/node#47739), several calls
// per activation; without it, a workflow stuck in a loop is no longer cut off
// (isolateExecutionTimeout), so this is not for production.
const { isMainThread } = require('node:worker_threads');

if (!isMainThread) {
  const vm = require('node:vm');
  const withoutTimeout = (options) => {
    if (!options || typeof options !== 'object' || !('timeout' in options)) return options;
    const { timeout: _timeout, ...rest } = options;
    return rest;
  };
  const runScript = vm.Script.prototype.runInContext;
  vm.Script.prototype.runInContext = function runInContext(context, options) {
    return runScript.call(this, context, withoutTimeout(options));
  };
  const run = vm.runInContext;
  vm.runInContext = (code, context, options) => run(code, context, withoutTimeout(options));
}
