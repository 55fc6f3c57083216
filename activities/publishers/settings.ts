import type { FieldError } from '../../src/validation/field-errors';

/** What a publisher's `settings` returns: its settings, or every missing or bad key by path. */
export type SettingsResult<S> = { ok: true; value: S } | { ok: false; errors: FieldError[] };

type Source = Readonly<Record<string, string>>;

/**
 * Reads keys from a broker's merged `conn_details` and `params`, collecting every missing key
 * at once. Paths use the config's names (`conn_details.x`, `params.y`).
 */
export const reader = (conn: Source, params: Source) => {
  const errors: FieldError[] = [];
  const has = (s: Source, k: string) => Object.prototype.hasOwnProperty.call(s, k) && s[k]!.trim() !== '';
  const read = (from: 'conn_details' | 'params', s: Source) => ({
    required: (key: string, why = 'is required'): string => {
      if (!has(s, key)) { errors.push({ path: `${from}.${key}`, message: why }); return ''; }
      return s[key]!;
    },
    optional: (key: string): string | undefined => (has(s, key) ? s[key] : undefined),
  });
  return {
    /** False for a value that holds a template: its format is known only once rendered. */
    literal: (v: string | undefined) => v !== undefined && !v.includes('{{'),
    conn: read('conn_details', conn),
    params: read('params', params),
    problem: (path: string, message: string) => { errors.push({ path, message }); },
    /** The settings, unless a key was missing or bad. */
    result: <S>(value: S): SettingsResult<S> => (errors.length > 0 ? { ok: false, errors } : { ok: true, value }),
  };
};
