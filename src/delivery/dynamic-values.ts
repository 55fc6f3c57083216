import { isAbsolute, resolve } from 'node:path';

/**
 * Resolves `{{ dotted.path }}` dynamic values when an action runs, never before: `env.NAME`
 * reads an environment variable; any other path walks the host's dynamic-value module, and a
 * function found there is called with no arguments. Only allow-listed paths resolve.
 * Resolved values go into the outgoing request only: never into logs, errors or history
 * (an error that echoes one is masked: secret-mask.ts).
 */
export interface DynamicValueSource {
  resolve(paths: readonly string[]): Promise<Map<string, unknown>>;
}

export class DynamicValueError extends Error {
  constructor(
    readonly path: string,
    reason: string,
  ) {
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

const hasOwn = (value: unknown, key: string): boolean =>
  (typeof value === 'object' || typeof value === 'function') && value !== null && Object.prototype.hasOwnProperty.call(value, key);
const ownValue = (value: object, key: string): unknown => (hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined);

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
      const value = ownValue(options.env, rest.join('.'));
      if (typeof value !== 'string') throw new DynamicValueError(path, 'is not set in the environment');
      return value;
    }
    const root = await moduleRoot(path);
    // An ES module's exports, or a CommonJS module's (under `default` when imported).
    const exported = ownValue(root, 'default');
    let value: unknown = exported && typeof exported === 'object' ? exported : root;
    for (const segment of path.split('.')) {
      // Own properties only: `secrets.constructor` must not reach (and call) Object.
      if (!hasOwn(value, segment)) throw new DynamicValueError(path, 'is not defined by the dynamic-value module');
      value = (value as Record<string, unknown>)[segment];
    }
    return typeof value === 'function' ? await (value as () => unknown)() : value;
  };
  return {
    resolve: async (paths) => new Map(await Promise.all(paths.map(async (p) => [p, await resolveOne(p)] as const))),
  };
};
