import request from 'supertest';
import { buildOpenApiDocument } from '../../../src/api/openapi';
import { jsonValueInline } from '../../../src/kernel/openapi';
import { configFrom, policyOf } from '../../../src/config';
import { publisherFor, SUPPORTED_BROKER_TYPES } from '../../../src/destinations/brokers/registry';
import { startTestApp } from '../../support/test-app';

type Layer = { route?: { path: string; methods: Record<string, boolean> } };

test('every route the app serves is in the OpenAPI document, and every documented operation is served', async () => {
  const t = await startTestApp();
  try {
    const stack = (t.app as unknown as { router: { stack: Layer[] } }).router.stack;
    const served = new Set<string>();
    for (const layer of stack) {
      if (!layer.route) continue;
      const path = layer.route.path.replace(/:(\w+)/g, '{$1}');
      for (const [method, on] of Object.entries(layer.route.methods)) if (on && method !== '_all') served.add(`${method} ${path}`);
    }
    const documented = new Set<string>();
    for (const [path, item] of Object.entries(buildOpenApiDocument(policyOf(configFrom({}))).paths)) {
      for (const method of Object.keys(item)) if (method !== 'parameters') documented.add(`${method} ${path}`);
    }
    expect([...served].sort()).toEqual([...documented].sort());
    const doc = await request(t.app).get('/api/openapi.json').expect(200);
    expect(doc.body.openapi).toBe('3.1.0');
    // Client generators take the base URL from servers (relative: where the document was served) and show the licence.
    expect(doc.body.servers).toEqual([{ url: '/', description: 'this service' }]);
    expect(doc.body.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
  } finally {
    await t.close();
  }
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Schemas = Record<string, any>;

test('every registered broker type is in the document with its keys: each one its publisher requires is described, the ones it always requires as required', () => {
  const schemas = buildOpenApiDocument(policyOf(configFrom({}))).components.schemas as Schemas;
  const mapping = schemas.BrokerTypes.discriminator.mapping as Record<string, string>;
  expect(Object.keys(mapping).sort()).toEqual([...SUPPORTED_BROKER_TYPES].sort());
  for (const type of SUPPORTED_BROKER_TYPES) {
    const schema = schemas[mapping[type]!.replace('#/components/schemas/', '')];
    expect(schema.properties.broker_type.const).toBe(type);
    // What the publisher itself names when nothing is given.
    const missing = (publisherFor(type)!.settings({}, {}) as { errors: Array<{ path: string }> }).errors.map(
      (e) => e.path.split('.') as [string, string],
    );
    for (const [section, key] of missing) {
      const described = schema.properties[section].properties[key];
      expect([type, section, key, typeof described?.description]).toEqual([type, section, key, 'string']);
      const always = (schema.properties[section].required ?? []).includes(key);
      expect([type, key, always || described.description.includes('Required unless')]).toEqual([type, key, true]);
    }
    for (const section of ['conn_details', 'params']) {
      for (const key of schema.properties[section].required ?? [])
        expect([type, section, key, missing.some(([s, k]) => s === section && k === key)]).toEqual([type, section, key, true]);
    }
  }
});

test("a configured broker's name says its type and what a trigger may set on it", () => {
  const policy = policyOf(
    configFrom({
      brokers: {
        orders: { broker_type: 'RabbitMQ', params: { queue: 'q' }, trigger_overrides: { parameters: ['routing_key'] } },
        events: { broker_type: 'kafka', conn_details: { bootstrap_servers: 'h:1' }, params: { topic: 't' } },
      },
    }),
  );
  const queue = (buildOpenApiDocument(policy).components.schemas as Schemas).TriggerInput.properties.msg_broker_queues.items.properties;
  expect(queue.name.enum).toEqual(['orders', 'events']);
  expect(queue.name.description).toContain('`orders`: rabbitmq; a trigger may set conn_details: none; parameters: routing_key');
  expect(queue.name.description).toContain('`events`: kafka; a trigger may set conn_details: none; parameters: any key');
  expect(queue.parameters.description).toContain('#/components/schemas/BrokerTypes');
});

test('the trigger resource documents deactivated_reason as a read-only server field, and the breaker in the TriggerDeactivated event', () => {
  const schemas = buildOpenApiDocument(policyOf(configFrom({}))).components.schemas as Schemas;
  for (const name of ['Trigger', 'TriggerInput', 'TriggerReplacement', 'TriggerPatch']) {
    expect([name, schemas[name].properties.deactivated_reason]).toEqual([
      name,
      expect.objectContaining({ type: 'string', readOnly: true }),
    ]);
  }
  expect(schemas.Trigger.required).not.toContain('deactivated_reason');
  expect(schemas.TriggerEvent.properties.data.description).toContain('system:circuit-breaker');
});

test("each webhook and queue entry documents its own payload, a JSON value like the trigger's, spelled out without a reference", () => {
  const config = configFrom({ brokers: { orders: { broker_type: 'redis', conn_details: { url: 'redis://redis.example' } } } });
  const schemas = buildOpenApiDocument(policyOf(config)).components.schemas as Schemas;
  for (const name of ['Trigger', 'TriggerInput', 'TriggerPatch']) {
    const { webhooks, msg_broker_queues } = schemas[name].properties;
    for (const [field, list] of [
      ['webhooks', webhooks.anyOf?.[0] ?? webhooks],
      ['msg_broker_queues', msg_broker_queues.anyOf?.[0] ?? msg_broker_queues],
    ]) {
      expect([name, field, list.items.properties.payload]).toEqual([
        name,
        field,
        { ...jsonValueInline(4), description: expect.stringContaining("instead of the trigger's") },
      ]);
    }
  }
});
