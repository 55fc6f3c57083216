import request from 'supertest';
import { startTestApp } from '../../support/test-app';

/**
 * Each place a review found where the OpenAPI document and the behaviour differed: the
 * behaviour (docs/design.md, HTTP API) and what the served document says about it, side by side.
 * test/integration/http/schemathesis.test.ts checks the whole document; these name each case.
 */
const trigger = (over: Record<string, unknown> = {}) => ({
  config_signals: [{ signal: 'post_save' }],
  content_types: [{ app_label: 'shop', model_name: 'order' }],
  webhooks: [{ url: 'https://hooks.example.com/a', http_method: 'POST' }],
  active: true,
  ...over,
});

let t: Awaited<ReturnType<typeof startTestApp>>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
let doc: any;
beforeAll(async () => {
  t = await startTestApp();
  doc = (await request(t.app).get('/api/openapi.json').expect(200)).body;
});
afterAll(async () => {
  await t.close();
});

const schema = (name: string) => doc.components.schemas[name];
const param = (path: string, method: string, name: string) =>
  [...(doc.paths[path].parameters ?? []), ...(doc.paths[path][method].parameters ?? [])].find((p: { name: string }) => p.name === name);
const errorPaths = (res: request.Response) => (res.body.errors as { path: string }[]).map((e) => e.path);

test('an empty or malformed If-Match is 400, and the document gives its pattern', async () => {
  const created = await request(t.app).post('/api/action-triggers').send(trigger()).expect(201);
  for (const value of ['', '3', '"3", "4"', 'w/"3"']) {
    const res = await request(t.app).delete(`/api/action-triggers/${created.body.id}`).set('If-Match', value).expect(400);
    expect(errorPaths(res)).toEqual(['header:If-Match']);
  }
  const pattern = new RegExp(param('/api/action-triggers/{id}', 'delete', 'If-Match').schema.pattern);
  expect(['', '3', '"3", "4"', 'w/"3"'].filter((v) => pattern.test(v))).toEqual([]);
  expect(['*', '"3"', 'W/"3"'].every((v) => pattern.test(v))).toBe(true);
});

test('a collection DELETE: an empty ids list is 400 (minItems 1); naming no trigger at all deletes nothing', async () => {
  const res = await request(t.app).delete('/api/action-triggers').send({ ids: [] }).expect(400);
  expect(errorPaths(res)).toEqual(['ids']);
  expect(doc.paths['/api/action-triggers'].delete.requestBody.content['application/json'].schema.properties.ids.minItems).toBe(1);
  await request(t.app).delete('/api/action-triggers').expect(204);
  const a = await request(t.app).post('/api/action-triggers').send(trigger()).expect(201);
  const b = await request(t.app).post('/api/action-triggers').send(trigger()).expect(201);
  await request(t.app)
    .delete(`/api/action-triggers?id=${a.body.id}`)
    .send({ ids: [b.body.id] })
    .expect(204);
  await request(t.app).get(`/api/action-triggers/${b.body.id}`).expect(404);
});

test('empty or blank list filters and cursors are 400; the document says minLength 1 and a pattern', async () => {
  for (const q of ['app_label=', 'model_name=%20', 'cursor=', 'cursor=%25%25']) {
    await request(t.app).get(`/api/action-triggers?${q}`).expect(400);
  }
  expect(param('/api/action-triggers', 'get', 'app_label').schema).toMatchObject({ minLength: 1, maxLength: 100 });
  expect(new RegExp(param('/api/action-triggers', 'get', 'model_name').schema.pattern).test(' ')).toBe(false);
  expect(new RegExp(param('/api/action-triggers', 'get', 'cursor').schema.pattern).test('')).toBe(false);
  // Any well-formed cursor is a position in the list.
  await request(t.app).get('/api/action-triggers?cursor=AAAA').expect(200);
});

test('duplicate config_signals are 400, and the document says uniqueItems', async () => {
  const res = await request(t.app)
    .post('/api/action-triggers')
    .send(trigger({ config_signals: [{ signal: 'post_save' }, { signal: 'post_save' }] }))
    .expect(400);
  expect(errorPaths(res)).toEqual(['config_signals[1].signal']);
  expect(schema('TriggerInput').properties.config_signals.uniqueItems).toBe(true);
});

test('a collection PUT without id is 400, and its schema requires id', async () => {
  const res = await request(t.app).put('/api/action-triggers').send(trigger()).expect(400);
  expect(errorPaths(res)).toEqual(['id']);
  expect(doc.paths['/api/action-triggers'].put.requestBody.content['application/json'].schema.$ref).toBe(
    '#/components/schemas/TriggerReplacement',
  );
  expect(schema('TriggerReplacement').required).toContain('id');
});

test('null is refused where the document says array, object, number or string; payload null means no payload', async () => {
  for (const [field, path] of [
    ['webhooks', 'webhooks'],
    ['msg_broker_queues', 'msg_broker_queues'],
    ['id', 'id'],
  ] as const) {
    const res = await request(t.app)
      .post('/api/action-triggers')
      .send(trigger({ [field]: null }))
      .expect(400);
    expect(errorPaths(res)).toEqual([path]);
  }
  const headers = await request(t.app)
    .post('/api/action-triggers')
    .send(trigger({ webhooks: [{ url: 'https://hooks.example.com/a', http_method: 'POST', headers: null, timeout_secs: null }] }))
    .expect(400);
  expect(errorPaths(headers).sort()).toEqual(['webhooks[0].headers', 'webhooks[0].timeout_secs']);
  await request(t.app)
    .post('/api/action-triggers')
    .send(trigger({ payload: null }))
    .expect(201);
  // An entry's payload null is none of its own, as its description says.
  const entry = await request(t.app)
    .post('/api/action-triggers')
    .send(trigger({ webhooks: [{ url: 'https://hooks.example.com/a', http_method: 'POST', payload: null }] }))
    .expect(201);
  expect(entry.body.webhooks).toEqual([{ url: 'https://hooks.example.com/a', http_method: 'POST' }]);
  expect(schema('TriggerInput').properties.webhooks.items.properties.payload.description).toContain('null or absent');
  const signal = await request(t.app)
    .post('/api/signals')
    .send({ id: null, signal: 'post_save', app_label: 'shop', model_name: 'order', instance: {}, occurred_at: null })
    .expect(400);
  expect(errorPaths(signal).sort()).toEqual(['id', 'occurred_at']);
});

test('TRACE (or any method a path lacks) is 405 with Allow on every path, the public ones included', async () => {
  for (const path of ['/healthz', '/readyz', '/docs', '/api/openapi.json', '/api/action-triggers']) {
    const res = await request(t.app).trace(path).expect(405);
    expect(res.headers.allow).toMatch(/GET/);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  }
});

test('a malformed merge patch is 400 even when If-Match names an old version', async () => {
  const created = await request(t.app).post('/api/action-triggers').send(trigger()).expect(201);
  await request(t.app).patch(`/api/action-triggers/${created.body.id}`).send({ active: false }).expect(200);
  const res = await request(t.app)
    .patch(`/api/action-triggers/${created.body.id}`)
    .set('If-Match', '"1"')
    .send({ webhooks: 5 })
    .expect(400);
  expect(errorPaths(res)).toEqual(['webhooks']);
});

test('lengths count code points, as JSON Schema does; http_method is ASCII-case-insensitive', async () => {
  const emoji = '\u{1F600}'.repeat(100);
  await request(t.app)
    .post('/api/action-triggers')
    .send(trigger({ content_types: [{ app_label: emoji, model_name: 'x' }] }))
    .expect(201);
  await request(t.app)
    .post('/api/action-triggers')
    .send(trigger({ webhooks: [{ url: 'https://hooks.example.com/a', http_method: 'poſt' }] }))
    .expect(400);
  await request(t.app)
    .post('/api/action-triggers')
    .send(trigger({ webhooks: [{ url: 'https://hooks.example.com/a', http_method: 'pOsT' }] }))
    .expect(201);
});
