import * as t from 'io-ts';
import { checkExpressions } from './template-expressions';
import type { JsonValue } from './json-value';

/**
 * Any JSON value whose strings hold only allowed template expressions: a payload, the trigger's
 * or an action's own. Every bad string and non-finite number is named by its path at once.
 * `allowed` undefined: any dynamic value (reading back stored events).
 */
export const templatedJson = (allowed: ReadonlySet<string> | undefined): t.Type<JsonValue, JsonValue, unknown> => {
  const walk = (u: unknown, c: t.Context, errors: t.ValidationError[]): void => {
    if (typeof u === 'string') {
      const message = checkExpressions(u, allowed);
      if (message) errors.push({ value: u, context: c, message });
    } else if (Array.isArray(u)) {
      u.forEach((v, i) => walk(v, t.appendContext(c, String(i), t.unknown, v), errors));
    } else if (typeof u === 'object' && u !== null) {
      for (const [k, v] of Object.entries(u)) walk(v, t.appendContext(c, k, t.unknown, v), errors);
    } else if (typeof u === 'number' && !Number.isFinite(u)) {
      errors.push({ value: u, context: c, message: 'must be a finite number' });
    }
  };
  return new t.Type<JsonValue, JsonValue, unknown>(
    'JsonValue',
    (u): u is JsonValue => u !== undefined,
    (u, c) => {
      const errors: t.ValidationError[] = [];
      walk(u, c, errors);
      return errors.length > 0 ? t.failures(errors) : t.success(u as JsonValue);
    },
    t.identity,
  );
};
