import { createHash } from 'node:crypto';
import request from 'supertest';
import { aTrigger, BROKERS_CONFIG, startTestApp } from '../../support/test-app';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
let t: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  t = await startTestApp({
    ...BROKERS_CONFIG,
    api_keys: [
      { id: 'ops', key_sha256: sha('ops-secret'), scopes: ['triggers:read', 'triggers:write'] },
      { id: 'reader', key: 'reader-secret', scopes: ['triggers:read'] },
    ],
  });
});
afterAll(async () => {
  await t.close();
});

test('no key or an unknown key is 401 with a Bearer challenge', async () => {
  const res = await request(t.app).get('/api/action-triggers').expect(401);
  expect(res.headers['www-authenticate']).toBe('Bearer');
  await request(t.app).get('/api/action-triggers').set('Authorization', 'Bearer wrong').expect(401);
  await request(t.app).get('/api/action-triggers').set('Authorization', 'Basic b3BzLXNlY3JldA==').expect(401);
});

test('scopes decide what a key may do; the actor is recorded in the history', async () => {
  const created = await request(t.app).post('/api/action-triggers').set('Authorization', 'Bearer ops-secret').send(aTrigger()).expect(201);
  await request(t.app).get(`/api/action-triggers/${created.body.id}`).set('Authorization', 'Bearer reader-secret').expect(200);
  await request(t.app).post('/api/action-triggers').set('Authorization', 'Bearer reader-secret').send(aTrigger()).expect(403);
  const history = await request(t.app)
    .get(`/api/action-triggers/${created.body.id}/history`)
    .set('Authorization', 'Bearer ops-secret')
    .expect(200);
  expect(history.body[0].metadata.actor).toBe('ops');
});

test('health, readiness and the API description need no key', async () => {
  await request(t.app).get('/healthz').expect(200);
  await request(t.app).get('/api/openapi.json').expect(200);
  await request(t.app).get('/docs').expect(200).expect('content-type', /html/);
  await request(t.app).get('/').expect(302).expect('location', '/admin/'); // the service's address in a browser: the admin
});
