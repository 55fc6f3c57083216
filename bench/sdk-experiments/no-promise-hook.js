// Bench experiment only (BENCH_NODE_FLAGS='-r ./bench/sdk-experiments/no-promise-hook.js'): in the
// Temporal SDK's workflow thread, skip the promise hook that captures and source-maps a stack for
// every promise a workflow creates. The `__stack_trace` and `__enhanced_stack_trace` queries (the
// Temporal UI's stack trace tab) then answer empty. Preloads run in worker threads too.
const { isMainThread } = require('node:worker_threads');

if (!isMainThread) {
  const { GlobalHandlers } = require(require.resolve('@temporalio/worker/lib/workflow/vm-shared', { paths: [__dirname] }));
  if (typeof GlobalHandlers?.prototype?.setPromiseHook !== 'function')
    throw new Error('no GlobalHandlers.setPromiseHook in this SDK version');
  GlobalHandlers.prototype.setPromiseHook = function skipped() {
    this.promiseHookInstalled = false;
  };
}
