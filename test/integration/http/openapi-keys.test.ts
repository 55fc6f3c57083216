import { buildOpenApiDocument } from '../../../src/api/openapi';
import { configFrom, policyOf } from '../../../src/config';
import { FORBIDDEN_KEYS } from '../../../src/kernel/limits';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Schema = Record<string, any>;

const policy = policyOf(configFrom({ brokers: { orders: { broker_type: 'rabbitmq', conn_details: { url: 'amqp://x' } } } }));
const doc = buildOpenApiDocument(policy) as unknown as { paths: Record<string, Record<string, Schema>>; components: { schemas: Schema } };

/** Every object schema reachable from `schema` that admits keys it does not name, with where it is. */
const openObjects = (schema: Schema, at: string, seen: Set<string>, found: Array<{ at: string; schema: Schema }>) => {
  if (!schema || typeof schema !== 'object') return;
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.split('/').pop()!;
    if (seen.has(name)) return;
    seen.add(name);
    openObjects(doc.components.schemas[name], name, seen, found);
    return;
  }
  const types = [schema.type].flat();
  const untyped = !schema.type && !schema.anyOf && !schema.oneOf && !schema.allOf && !schema.enum && !('const' in schema) && !schema.not;
  if ((types.includes('object') || untyped) && schema.additionalProperties !== false) found.push({ at, schema });
  for (const [k, v] of Object.entries<Schema>(schema.properties ?? {})) openObjects(v, `${at}.${k}`, seen, found);
  for (const [k, v] of Object.entries<Schema>(schema.patternProperties ?? {})) openObjects(v, `${at}./${k}/`, seen, found);
  if (schema.items) openObjects(schema.items, `${at}[]`, seen, found);
  if (typeof schema.additionalProperties === 'object') openObjects(schema.additionalProperties, `${at}.*`, seen, found);
  for (const k of ['anyOf', 'oneOf', 'allOf'])
    for (const [i, v] of (schema[k] ?? []).entries()) openObjects(v as Schema, `${at}(${k} ${i})`, seen, found);
};

/** Whether a propertyNames schema refuses every one of FORBIDDEN_KEYS: itself, or one schema of its allOf. */
const refuses = (names: Schema | undefined): boolean =>
  !!names && ([...FORBIDDEN_KEYS].every((k) => (names.not?.enum ?? []).includes(k)) || (names.allOf ?? []).some(refuses));

test('no request schema admits a key the body parser refuses (__proto__, constructor, prototype), at any depth', () => {
  const found: Array<{ at: string; schema: Schema }> = [];
  for (const [path, item] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(item)) {
      const schema = op.requestBody?.content?.['application/json']?.schema;
      if (schema) openObjects(schema, `${method.toUpperCase()} ${path}`, new Set(), found);
    }
  // The walk reaches the free-form values (an instance, a payload), so an empty list is not the walk missing them.
  expect(found.map((f) => f.at)).toEqual(expect.arrayContaining(['JsonValue(anyOf 2)']));
  expect(found.filter((f) => !refuses(f.schema.propertyNames)).map((f) => f.at)).toEqual([]);
});
