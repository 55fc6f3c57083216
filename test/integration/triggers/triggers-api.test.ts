import request from 'supertest';
import { aTrigger, BROKERS_CONFIG, startTestApp } from '../../support/test-app';

let t: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  t = await startTestApp(BROKERS_CONFIG);
});
afterAll(async () => {
  await t.close();
});

const create = async (over: Record<string, unknown> = {}) => {
  const res = await request(t.app).post('/api/action-triggers').send(aTrigger(over)).expect(201);
  return res.body as Record<string, unknown> & { id: string; version: number };
};

test('full lifecycle: create, read, list, replace, patch active, delete, 404, history', async () => {
  const created = await request(t.app).post('/api/action-triggers').set('X-Request-Id', 'req-1').send(aTrigger()).expect(201);
  const id = created.body.id as string;
  expect(created.headers.location).toBe(`/api/action-triggers/${id}`);
  expect(created.headers.etag).toBe('"1"');
  expect(created.body).toMatchObject({ ...aTrigger(), version: 1 });
  expect(created.body.created_at).toBe(created.body.updated_at);

  const read = await request(t.app).get(`/api/action-triggers/${id}`).expect(200);
  expect(read.body).toEqual(created.body);
  expect(read.headers.etag).toBe('"1"');

  const listed = await request(t.app).get('/api/action-triggers').expect(200);
  expect(listed.body.map((x: { id: string }) => x.id)).toContain(id);

  const replacement = { ...read.body, webhooks: [{ url: 'https://hooks.example.com/v2', http_method: 'put' }] };
  const replaced = await request(t.app).put(`/api/action-triggers/${id}`).set('If-Match', '"1"').send(replacement).expect(200);
  expect(replaced.body.webhooks).toEqual([{ url: 'https://hooks.example.com/v2', http_method: 'PUT' }]);
  expect(replaced.body.version).toBe(2);

  const patched = await request(t.app)
    .patch(`/api/action-triggers/${id}`)
    .set('Content-Type', 'application/merge-patch+json')
    .send(JSON.stringify({ active: false }))
    .expect(200);
  expect(patched.body).toMatchObject({
    active: false,
    version: 3,
    webhooks: replacement.webhooks.map((w: object) => ({ ...w, http_method: 'PUT' })),
  });
  expect(patched.headers.etag).toBe('"3"');

  await request(t.app).delete(`/api/action-triggers/${id}`).expect(204);
  await request(t.app)
    .get(`/api/action-triggers/${id}`)
    .expect(404)
    .expect('content-type', /problem\+json/);
  await request(t.app).put(`/api/action-triggers/${id}`).send(aTrigger()).expect(404);

  const history = await request(t.app).get(`/api/action-triggers/${id}/history`).expect(200);
  expect(history.body.map((e: { type: string }) => e.type)).toEqual([
    'TriggerCreated',
    'TriggerUpdated',
    'TriggerDeactivated',
    'TriggerDeleted',
  ]);
  expect(history.body.map((e: { version: number }) => e.version)).toEqual([1, 2, 3, 4]);
  expect(history.body[0].metadata).toMatchObject({ actor: 'anonymous', request_id: 'req-1' });
  expect(history.body[0].data.definition.webhooks[0].url).toBe('https://hooks.example.com/orders');
});

test('a replacement that changes nothing records nothing; one that flips active records (de)activation', async () => {
  const t1 = await create();
  const same = await request(t.app).put(`/api/action-triggers/${t1.id}`).send(t1).expect(200);
  expect(same.body.version).toBe(1);
  await request(t.app)
    .put(`/api/action-triggers/${t1.id}`)
    .send({ ...t1, active: false })
    .expect(200);
  await request(t.app).patch(`/api/action-triggers/${t1.id}`).send({ active: true }).expect(200);
  const history = await request(t.app).get(`/api/action-triggers/${t1.id}/history`).expect(200);
  expect(history.body.map((e: { type: string }) => e.type)).toEqual(['TriggerCreated', 'TriggerDeactivated', 'TriggerActivated']);
});

test('PATCH merges: null removes the payload, nested objects merge, the result is validated whole', async () => {
  const t1 = await create();
  const res = await request(t.app).patch(`/api/action-triggers/${t1.id}`).send({ payload: null }).expect(200);
  expect(res.body.payload).toBeUndefined();
  const bad = await request(t.app)
    .patch(`/api/action-triggers/${t1.id}`)
    .send({ config_signals: [{ signal: 'saved' }] })
    .expect(400);
  expect(bad.body.errors).toEqual([{ path: 'config_signals[0].signal', message: expect.stringContaining('post_save') }]);
  await request(t.app).patch(`/api/action-triggers/${t1.id}`).send([1, 2]).expect(400);
});

test('If-Match: stale version is 412 and changes nothing; malformed is 400; * needs an existing trigger', async () => {
  const t1 = await create();
  await request(t.app).patch(`/api/action-triggers/${t1.id}`).set('If-Match', '"7"').send({ active: false }).expect(412);
  await request(t.app).patch(`/api/action-triggers/${t1.id}`).set('If-Match', 'seven').send({ active: false }).expect(400);
  await request(t.app).delete(`/api/action-triggers/${t1.id}`).set('If-Match', '"2"').expect(412);
  expect((await request(t.app).get(`/api/action-triggers/${t1.id}`)).body.active).toBe(true);
  await request(t.app).patch(`/api/action-triggers/${t1.id}`).set('If-Match', '*').send({ active: false }).expect(200);
  await request(t.app).delete(`/api/action-triggers/${t1.id}`).set('If-Match', 'W/"2"').expect(204);
});

test('collection PUT replaces the trigger named by the body id; without id it is 400', async () => {
  const t1 = await create();
  const res = await request(t.app)
    .put('/api/action-triggers')
    .send({ ...t1, active: false })
    .expect(200);
  expect(res.body).toMatchObject({ id: t1.id, active: false, version: 2 });
  const noId = await request(t.app).put('/api/action-triggers').send(aTrigger()).expect(400);
  expect(noId.body.errors).toEqual([{ path: 'id', message: expect.any(String) }]);
  await request(t.app)
    .put(`/api/action-triggers/${t1.id}`)
    .send({ ...t1, id: '01900000-0000-7000-8000-000000000000' })
    .expect(400);
});

test('collection DELETE takes ids from the query or the body; an unknown id deletes nothing', async () => {
  const [a, b, c] = [await create(), await create(), await create()];
  const unknown = '01900000-0000-7000-8000-000000000001';
  const res = await request(t.app).delete(`/api/action-triggers?id=${a.id}&id=${unknown}`).expect(404);
  expect(res.body.detail).toContain(unknown);
  await request(t.app).get(`/api/action-triggers/${a.id}`).expect(200);
  await request(t.app).delete(`/api/action-triggers?id=${a.id}&id=${b.id}`).expect(204);
  await request(t.app)
    .delete('/api/action-triggers')
    .send({ ids: [c.id] })
    .expect(204);
  for (const x of [a, b, c]) await request(t.app).get(`/api/action-triggers/${x.id}`).expect(404);
  const bad = await request(t.app)
    .delete('/api/action-triggers')
    .send({ ids: ['nope'] })
    .expect(400);
  expect(bad.body.errors[0].path).toBe('ids[0]');
  // Naming no trigger deletes nothing (the OpenAPI document cannot require "query or body").
  await request(t.app).delete('/api/action-triggers').expect(204);
});

test('history of an unknown trigger is 404; a non-UUID id is 404, not 500', async () => {
  await request(t.app).get('/api/action-triggers/01900000-0000-7000-8000-000000000009/history').expect(404);
  await request(t.app).get('/api/action-triggers/not-a-uuid').expect(404);
  await request(t.app).get('/api/action-triggers/%E0%A4%A').expect(400);
});

test('wrong methods are 405 with Allow; OPTIONS lists them; unknown paths are 404 problems', async () => {
  const res = await request(t.app).post('/api/action-triggers/01900000-0000-7000-8000-000000000009').send({}).expect(405);
  expect(res.headers.allow).toBe('GET, PUT, PATCH, DELETE, HEAD, OPTIONS');
  expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
  await request(t.app).patch('/api/action-triggers').send({}).expect(405).expect('allow', 'GET, POST, PUT, DELETE, HEAD, OPTIONS');
  await request(t.app).options('/api/action-triggers').expect(204).expect('allow', /POST/);
  await request(t.app)
    .get('/api/nothing-here')
    .expect(404)
    .expect('content-type', /problem\+json/);
});

test('bodies: non-JSON is 415, malformed JSON is 400, over the limit is 413', async () => {
  await request(t.app).post('/api/action-triggers').set('Content-Type', 'text/plain').send('hello').expect(415);
  await request(t.app).post('/api/action-triggers').set('Content-Type', 'application/json').send('{"config_signals": [').expect(400);
  const huge = { ...aTrigger(), payload: { blob: 'x'.repeat(1024 * 1024 + 10) } };
  await request(t.app).post('/api/action-triggers').send(huge).expect(413);
  const res = await request(t.app).post('/api/action-triggers').set('Content-Type', 'application/json').send('"just a string"').expect(400);
  expect(res.body.errors).toEqual([{ path: '(body)', message: 'must be an object' }]);
});

test('read-only fields of a GET body are accepted and ignored on input', async () => {
  const t1 = await create();
  const res = await request(t.app)
    .post('/api/action-triggers')
    .send({ ...t1, version: 99, created_at: 'x' })
    .expect(201);
  expect(res.body.id).not.toBe(t1.id);
  expect(res.body.version).toBe(1);
});

test('health and readiness', async () => {
  await request(t.app).get('/healthz').expect(200, { status: 'ok' });
  const ready = await request(t.app).get('/readyz').expect(200);
  expect(ready.body.checks.projection).toBe(true);
});
