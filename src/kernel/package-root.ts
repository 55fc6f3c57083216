import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The project's root (the folder with package.json): the same from the sources (`src/…`) and from
 * the build (`dist/src/…`), so files beside the code (web/admin, .tools) are found from either.
 */
export const packageRoot = (from = __dirname): string => {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return from;
  }
};
