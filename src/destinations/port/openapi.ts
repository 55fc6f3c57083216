/** OpenAPI fragments every destination's schema uses. */
import { ALLOWED_KEY, jsonValueInline, type Schema } from '../../kernel/openapi';

export type { Schema };

export const stringMapSchema: Schema = { type: 'object', propertyNames: ALLOWED_KEY, additionalProperties: { type: 'string' } };
export const TEMPLATED_MAP = 'Values may hold {{ dynamic.value }} expressions (the allow-listed ones), resolved at delivery';

/** An action's `timeout_secs`, at most the config's limit for its kind. */
export const timeoutSchema = (max: number): Schema => ({
  type: 'number',
  exclusiveMinimum: 0,
  ...(Number.isFinite(max) ? { maximum: max } : {}),
  description: 'Seconds; absent means limits.default_timeout_secs',
});

/** An entry's own `payload`: the trigger payload's shape, sent by that action instead of it. */
export const entryPayloadSchema = (action: string): Schema => ({
  ...jsonValueInline(4),
  description:
    `This ${action}'s own payload, sent instead of the trigger's (replaced whole, not merged; null or absent: the trigger's). ` +
    'Any JSON value; strings may hold {{ instance.attr }} and allow-listed {{ dynamic.value }} expressions',
});

/** A word in any case: JSON Schema patterns take no flags. */
export const anyCase = (word: string) =>
  [...word].map((ch) => (/[a-z]/.test(ch) ? `[${ch.toUpperCase()}${ch}]` : ch.replace(/[-.]/g, '\\$&'))).join('');

/** A map of strings as a dry run shows it (already checked on write). */
export const SHOWN_STRINGS: Schema = { type: 'object', additionalProperties: { type: 'string' } };
