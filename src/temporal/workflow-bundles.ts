import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../kernel/package-root';

/** The bundles `npm run build` writes into dist/ (scripts/bundle-workflows.js), by tracing on. */
export const BUNDLE_FILES = { false: 'workflow-bundle.js', true: 'workflow-bundle-tracing.js' } as const;

/**
 * The build's workflow bundle, when this code runs from the build (dist/): both came from the same
 * sources, so a worker loads it instead of bundling at every start. Undefined from the sources
 * (ts-node, tests of modules), where the code may have changed since the last build.
 */
export const builtWorkflowBundle = (tracing: boolean): string | undefined => {
  const dist = join(packageRoot(), 'dist');
  const path = join(dist, BUNDLE_FILES[tracing ? 'true' : 'false']);
  return __dirname.startsWith(dist) && existsSync(path) ? path : undefined;
};
