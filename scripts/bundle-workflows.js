// `npm run build`, after tsc: the workflow code bundled once, as the compiled worker loads it
// (src/temporal/workflow-bundles.ts), without and with tracing's interceptors.
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');

const dist = join(__dirname, '..', 'dist');
const { bundleWorkflows } = require(join(dist, 'src', 'worker.js'));
const { TRACING_WORKFLOW_MODULES } = require(join(dist, 'src', 'observability', 'tracing.js'));
const { BUNDLE_FILES } = require(join(dist, 'src', 'temporal', 'workflow-bundles.js'));

const main = async () => {
  for (const [tracing, modules] of [
    [false, []],
    [true, TRACING_WORKFLOW_MODULES],
  ]) {
    const { code } = await bundleWorkflows(modules);
    writeFileSync(join(dist, BUNDLE_FILES[String(tracing)]), code);
  }
};
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
