import request from 'supertest';
import { startDispatchHarness } from '../../support/dispatch-harness';

/**
 * Who may cancel, and what a cancel that cannot reach a worker answers: a key without
 * `signals:write` is refused with 403 before anything is read; with no worker to take the
 * update, the answer is a 503 that says why and that asking again is safe, never a hang.
 */
let h: Awaited<ReturnType<typeof startDispatchHarness>>;
beforeAll(async () => {
  h = await startDispatchHarness(
    {
      api_keys: [
        { id: 'editor', key: 'editor-secret', scopes: ['triggers:read', 'triggers:write'] },
        { id: 'sender', key: 'sender-secret', scopes: ['triggers:write', 'signals:write'] },
      ],
    },
    { worker: false },
  );
});
afterAll(async () => {
  await h?.close();
});

const as = (key: string) => ({ Authorization: `Bearer ${key}` });

test('a key without signals:write may not cancel (403, naming the scope); one with it reaches the signal', async () => {
  const refused = await request(h.app).post('/api/signals/any-signal/cancel').set(as('editor-secret')).send({}).expect(403);
  expect(refused.body.detail).toMatch(/signals:write/);
  await request(h.app).post('/api/signals/any-signal/cancel').set(as('sender-secret')).send({}).expect(404);
});

test('no worker takes the cancel: a 503 that says why, and asking again is safe', async () => {
  await request(h.app)
    .post('/api/action-triggers')
    .set(as('sender-secret'))
    .send({
      config_signals: [{ signal: 'post_save' }],
      content_types: [{ app_label: 'cancel', model_name: 'workerless' }],
      active: true,
      webhooks: [{ url: 'http://127.0.0.1:9/never', http_method: 'POST' }],
    })
    .expect(201);
  const id = `workerless-${Date.now()}`;
  await request(h.app)
    .post('/api/signals')
    .set(as('sender-secret'))
    .send({ id, signal: 'post_save', app_label: 'cancel', model_name: 'workerless', instance: { id: 1 } })
    .expect(202);
  // The relay starts the dispatch within moments; until then the cancel is refused as queued (409).
  let res = await request(h.app).post(`/api/signals/${id}/cancel`).set(as('sender-secret')).send({});
  for (let i = 0; res.status === 409 && i < 50; i++) {
    await new Promise((r) => setTimeout(r, 100));
    res = await request(h.app).post(`/api/signals/${id}/cancel`).set(as('sender-secret')).send({});
  }
  expect(res.status).toBe(503);
  expect(res.body.detail).toMatch(/no worker took the cancel in time/);
  expect(res.headers['retry-after']).toBeDefined();
}, 60_000);
