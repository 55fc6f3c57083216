import { toFieldErrors } from '../kernel/field-errors';
import { arrayOf } from '../kernel/closed';
import { ConfigError, readJsonFile } from './errors';
import { ApiKey } from './file';

/**
 * API_KEYS_FILE: more keys, in a file of their own (a container secret), as a JSON array shaped
 * like `api_keys`; added to the config file's. Errors are named `API_KEYS_FILE[i].<field>`; a key
 * id may not appear twice (the audit feed names a change's key by its id).
 */
export const withKeysFile = (inConfig: readonly ApiKey[], path: string): ApiKey[] => {
  const decoded = arrayOf(ApiKey).decode(readJsonFile(path, 'API_KEYS_FILE'));
  if (decoded._tag === 'Left') {
    throw new ConfigError(toFieldErrors(decoded.left).map((x) => ({ ...x, path: `API_KEYS_FILE${x.path === '(body)' ? '' : x.path}` })));
  }
  const seen = new Set(inConfig.map((k) => k.id));
  const errors = decoded.right.flatMap((k, i) => {
    const repeated = seen.has(k.id);
    seen.add(k.id);
    return repeated ? [{ path: `API_KEYS_FILE[${i}].id`, message: `'${k.id}' is already the id of another key` }] : [];
  });
  if (errors.length > 0) throw new ConfigError(errors);
  return [...inConfig, ...decoded.right];
};
