import { DynamicValueError, DynamicValueSource } from './dynamic-values';

/** The text a dry run shows instead of a dynamic value. */
export const maskOf = (path: string) => `{{ ${path} }}`;

/**
 * A dynamic-value source for the dry run: each path "resolves" to its own `{{ path }}` text, so
 * nothing secret is read and an unset variable does not fail it. It refuses what the worker's
 * source refuses before reading anything: a path off the allow-list, a module path with no module.
 */
export const maskedDynamicValues = (o: { allowedDynamicPaths: readonly string[]; dynamicModule: boolean }): DynamicValueSource => {
  const allowed = new Set(o.allowedDynamicPaths);
  const maskOne = (path: string) => {
    if (!allowed.has(path)) throw new DynamicValueError(path, 'is not on dynamic_values.allowed_paths');
    if (path.split('.')[0] !== 'env' && !o.dynamicModule) throw new DynamicValueError(path, 'needs dynamic_values.module in the config');
    return [path, maskOf(path)] as const;
  };
  return { resolve: async (paths) => new Map(paths.map(maskOne)) };
};
