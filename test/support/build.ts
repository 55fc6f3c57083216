import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * `npm run build`: compiles the service into dist/ and bundles its workflow code, which the tests and benchmarks then run as
 * production does (no TypeScript loader), so they always run the code as it is now.
 */
export const buildService = async () => {
  const root = join(__dirname, '..', '..');
  const run = promisify(execFile);
  await run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')], { cwd: root });
  await run(process.execPath, [join(root, 'scripts', 'bundle-workflows.js')], { cwd: root });
};
