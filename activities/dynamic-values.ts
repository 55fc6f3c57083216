import { isAbsolute, resolve } from 'node:path';

/**
 * Resolves `{{ dotted.path }}` dynamic values when an action runs, never before: `env.NAME`
 * reads an environment variable; any other path walks the host's dynamic-value module, and a
 * function found there is called with no arguments. Only allow-listed paths resolve.
 * Resolved values go into the outgoing request only: never into logs, errors or history.
 */
export interface DynamicValueSource {
  resolve(paths: readonly string[]): Promise<Map<string, unknown>>;
}

export class DynamicValueError extends Error {
  constructor(readonly path: string, reason: string) {
    super(`dynamic value {{ ${path} }} ${reason}`);
    this.name = 'DynamicValueError';
  }
}

export interface DynamicValueOptions {
  modulePath: string | undefined;
  allowedPaths: readonly string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export const createDynamicValues = (options: DynamicValueOptions): DynamicValueSource => {
  const allowed = new Set(options.allowedPaths);
  let loaded: Promise<Record<string, unknown>> | undefined;
  const moduleRoot = (path: string): Promise<Record<string, unknown>> => {
    if (!options.modulePath) throw new DynamicValueError(path, 'needs dynamic_values.module in the config');
    const file = isAbsolute(options.modulePath) ? options.modulePath : resolve(options.cwd, options.modulePath);
    loaded ??= import(file) as Promise<Record<string, unknown>>;
    return loaded;
  };
  const resolveOne = async (path: string): Promise<unknown> => {
    if (!allowed.has(path)) throw new DynamicValueError(path, 'is not on dynamic_values.allowed_paths');
    const [head, ...rest] = path.split('.');
    if (head === 'env') {
      const value = options.env[rest.join('.')];
      if (value === undefined) throw new DynamicValueError(path, 'is not set in the environment');
      return value;
    }
    const root = await moduleRoot(path);
    // An ES module's exports, or a CommonJS module's (under `default` when imported).
    let value: unknown = 'default' in root && root.default && typeof root.default === 'object' ? root.default : root;
    for (const segment of path.split('.')) {
      if (value === null || (typeof value !== 'object' && typeof value !== 'function') || !(segment in (value as object))) {
        throw new DynamicValueError(path, 'is not defined by the dynamic-value module');
      }
      value = (value as Record<string, unknown>)[segment];
    }
    return typeof value === 'function' ? await (value as () => unknown)() : value;
  };
  return {
    resolve: async (paths) => new Map(await Promise.all(paths.map(async (p) => [p, await resolveOne(p)] as const))),
  };
};
