import type { BrokerKeys, KeySection, SettingsKey } from './settings-keys';
import type { FieldError } from '../../kernel/field-errors';

/** What a publisher's `settings` returns: its settings, or every missing or bad key by path. */
export type SettingsResult<S> = { ok: true; value: S } | { ok: false; errors: FieldError[] };

type Source = Readonly<Record<string, string>>;

/** `is required`, with the alternative or the format the key's table entry gives. */
const requiredMessage = (k: SettingsKey) =>
  k.requiredUnless ? `is required (or ${k.requiredUnless})` : k.format ? `is required (${k.format})` : 'is required';

/**
 * Reads keys from a broker's merged `conn_details` and `params`, collecting every missing key
 * at once. Only the keys of the broker type's table (src/destinations/broker-kit/settings-keys.ts) can be read,
 * as that table says: `required` for a key it marks required (always or unless another is
 * given), `optional` for one it does not always require. Paths use the config's names
 * (`conn_details.x`, `params.y`).
 */
export const reader = <K extends BrokerKeys>(keys: K, conn: Source, params: Source) => {
  const errors: FieldError[] = [];
  const has = (s: Source, k: string) => Object.prototype.hasOwnProperty.call(s, k) && s[k]!.trim() !== '';
  const read = <F extends KeySection>(from: F, s: Source) => {
    /** A read the table does not describe is a bug, found by the first settings check of that type. */
    const entry = (key: string, as: 'required' | 'optional'): SettingsKey => {
      const k = keys[from][key];
      const requirable = k !== undefined && (k.required === true || k.requiredUnless !== undefined);
      if (k === undefined || (as === 'required' ? !requirable : k.required === true)) {
        throw new Error(`${from}.${key} is read as ${as}, which the broker keys table does not say`);
      }
      return k;
    };
    return {
      required: (key: keyof K[F] & string, why?: string): string => {
        const k = entry(key, 'required');
        if (!has(s, key)) {
          errors.push({ path: `${from}.${key}`, message: why ?? requiredMessage(k) });
          return '';
        }
        return s[key]!;
      },
      optional: (key: keyof K[F] & string): string | undefined => {
        entry(key, 'optional');
        return has(s, key) ? s[key] : undefined;
      },
    };
  };
  return {
    /** False for a value that holds a template: its format is known only once rendered. */
    literal: (v: string | undefined) => v !== undefined && !v.includes('{{'),
    conn: read('conn_details', conn),
    params: read('params', params),
    problem: (path: string, message: string) => {
      errors.push({ path, message });
    },
    /** The settings, unless a key was missing or bad. */
    result: <S>(value: S): SettingsResult<S> => (errors.length > 0 ? { ok: false, errors } : { ok: true, value }),
  };
};
