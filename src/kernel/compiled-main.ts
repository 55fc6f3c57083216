import { join } from 'node:path';
import { packageRoot } from './package-root';

/** The service's entry point as `npm run build` compiles it: what `npm start` and the tests run. */
export const compiledMain = () => join(packageRoot(), 'dist', 'src', 'main.js');
