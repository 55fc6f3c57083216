import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { packageRoot } from '../kernel/package-root';

/** The Temporal CLI: TEMPORAL_CLI_PATH, else `temporal` on PATH, else the project-local install. */
export const findTemporalCli = (explicit: string | undefined, root = packageRoot()): string | undefined => {
  if (explicit) return existsSync(explicit) ? explicit : undefined;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'temporal');
    if (dir && existsSync(candidate)) return candidate;
  }
  const local = join(root, '.tools', 'temporal', 'bin', 'temporal');
  return existsSync(local) ? local : undefined;
};
