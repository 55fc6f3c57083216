import request from 'supertest';
import { v7 as uuidv7 } from 'uuid';
import { streamOf } from '../../../src/model/triggers/events';
import { aTrigger, BROKERS_CONFIG, startTestApp } from '../../support/test-app';

const meta = { actor: 'test', request_id: 'r1', occurred_at: '2026-01-01T00:00:00.000Z' };

test("a stored trigger that today's request rules would refuse is still served and updatable", async () => {
  // Written by an older build: lower-case method, a URL and a broker today's config refuses, extra keys.
  const t = await startTestApp({ ...BROKERS_CONFIG, webhook_url_patterns: ['^https://hooks\\.example\\.com/'] });
  const id = uuidv7();
  const definition = {
    ...aTrigger(),
    webhooks: [{ url: 'http://old.example.net/hook', http_method: 'post', retired: true }],
    msg_broker_queues: [{ name: 'a-removed-broker' }],
    legacy_flag: 'x',
  };
  const { position } = await t.store.append(
    streamOf(id),
    [{ type: 'TriggerCreated', data: { schema_version: 1, trigger_id: id, definition, extra: 1 }, metadata: meta }],
    'no_stream',
  );
  await t.projection.waitFor(position, 5000);
  const got = await request(t.app).get(`/api/action-triggers/${id}`).expect(200);
  expect(got.body.webhooks).toEqual([{ url: 'http://old.example.net/hook', http_method: 'POST' }]);
  expect(got.body.msg_broker_queues).toEqual([{ name: 'a-removed-broker' }]);
  expect(got.body).not.toHaveProperty('legacy_flag');
  expect(t.readModel.matching('post_save', 'shop', 'order').map((v) => v.id)).toEqual([id]);
  // Deactivating it goes through loadTrigger: the old event must be read, not skipped.
  await request(t.app).patch(`/api/action-triggers/${id}`).send({ active: false, webhooks: [], msg_broker_queues: [] }).expect(200);
  await request(t.app).delete(`/api/action-triggers/${id}`).expect(204);
  await t.close();
});

test('an event that cannot be read stops the projection there, loudly: 503 naming it, not ready, never skipped', async () => {
  const t = await startTestApp(BROKERS_CONFIG);
  const good = (await request(t.app).post('/api/action-triggers').send(aTrigger()).expect(201)).body.id as string;
  const bad = uuidv7();
  await t.store.append(
    streamOf(bad),
    [
      { type: 'TriggerCreated', data: { schema_version: 1, trigger_id: bad, definition: aTrigger() }, metadata: meta },
      { type: 'TriggerCreated', data: { schema_version: 99, trigger_id: bad, definition: aTrigger() }, metadata: meta },
    ],
    'no_stream',
  );
  const after = (await request(t.app).post('/api/action-triggers').send(aTrigger()).expect(201)).body.id as string;
  const ready = await request(t.app).get('/readyz').expect(503);
  expect(ready.body.reasons.projection).toMatch(new RegExp(`stored event ${streamOf(bad)}@1 cannot be read: schema_version 99 is newer`));
  // The event before the bad one was applied; nothing after it was (the checkpoint did not move past it).
  expect(t.readModel.get(bad)?.version).toBe(1);
  expect(t.readModel.get(after)).toBeUndefined();
  expect(t.readModel.get(good)?.version).toBe(1);
  const write = await request(t.app).patch(`/api/action-triggers/${bad}`).send({ active: false }).expect(503);
  expect(write.body.detail).toMatch(new RegExp(`stored event ${streamOf(bad)}@1 cannot be read`));
  expect(write.headers['retry-after']).toBeUndefined();
  expect(await t.store.read(streamOf(bad))).toHaveLength(2);
  await t.close();
}, 20_000);

test('a write answers with exactly the resource the read model serves afterwards', async () => {
  const brokers = { orders: { ...BROKERS_CONFIG.brokers.orders, trigger_overrides: { conn_details: ['k'] } } };
  const t = await startTestApp({ ...BROKERS_CONFIG, brokers });
  const body = aTrigger({
    webhooks: [{ url: 'https://hooks.example.com/a', http_method: 'patch', timeout_secs: 3, headers: { b: '1', a: '2' } }],
    msg_broker_queues: [{ name: 'orders', parameters: { z: '1', a: '2' }, conn_details: { k: 'v' }, timeout_secs: 1 }],
  });
  const created = await request(t.app).post('/api/action-triggers').send(body).expect(201);
  const id = created.body.id as string;
  expect((await request(t.app).get(`/api/action-triggers/${id}`).expect(200)).text).toBe(created.text);
  const patched = await request(t.app).patch(`/api/action-triggers/${id}`).send({ active: false }).expect(200);
  const got = await request(t.app).get(`/api/action-triggers/${id}`).expect(200);
  expect(got.text).toBe(patched.text);
  expect(got.headers.etag).toBe(patched.headers.etag);
  await t.close();
});
