/** Pieces of the OpenAPI document every feature's fragment uses (assembled in src/api/openapi.ts). */
import { FORBIDDEN_KEYS } from './limits';

export type Schema = Record<string, unknown>;

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
/** A problem+json response with a description (every error of the document). */
export const problemResponse = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: ref('Problem') } },
});
/** An application/json body or response of a schema. */
export const json = (schema: unknown) => ({ 'application/json': { schema } });
/** A required JSON request body of a named schema. */
export const body = (name: string) => ({ required: true, content: json(ref(name)) });

/** A key a request body may hold: the body parser refuses FORBIDDEN_KEYS at any depth (src/http/json-body.ts). */
export const ALLOWED_KEY: Schema = { not: { enum: [...FORBIDDEN_KEYS] } };
/** Any JSON value a request body may hold (the `JsonValue` component). */
export const JSON_VALUE: Schema = ref('JsonValue');
/** Any JSON object a request body may hold. */
export const JSON_OBJECT: Schema = { type: 'object', propertyNames: ALLOWED_KEY, additionalProperties: JSON_VALUE };
/**
 * Any JSON value, spelled out `depth` levels deep without a reference: the same values as
 * `JSON_VALUE`, whose keys are checked down to that depth. For a value inside an array's items,
 * where a recursive reference stops schemathesis's generator (it cannot place the array's
 * elements while the cycle is being built).
 */
export const jsonValueInline = (depth: number): Schema =>
  depth <= 1
    ? { anyOf: [{ type: ['null', 'boolean', 'number', 'string', 'array'] }, { type: 'object', propertyNames: ALLOWED_KEY }] }
    : {
        anyOf: [
          { type: ['null', 'boolean', 'number', 'string'] },
          { type: 'array', items: jsonValueInline(depth - 1) },
          { type: 'object', propertyNames: ALLOWED_KEY, additionalProperties: jsonValueInline(depth - 1) },
        ],
      };
/** The components the pieces above refer to. */
export const jsonSchemas = (): Record<string, Schema> => ({
  JsonValue: { anyOf: [{ type: ['null', 'boolean', 'number', 'string'] }, { type: 'array', items: JSON_VALUE }, JSON_OBJECT] },
});
