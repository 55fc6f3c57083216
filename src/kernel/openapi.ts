/** Pieces of the OpenAPI document every feature's fragment uses (assembled in src/api/openapi.ts). */
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
