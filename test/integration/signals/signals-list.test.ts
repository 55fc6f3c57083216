import request from 'supertest';
import { startDispatchHarness, TEST_RETRY } from '../../support/dispatch-harness';
import { startReceiver, Receiver } from '../../support/receiver';
import { waitForDispatch } from '../../support/signals';
import { postTrigger, triggerBody } from '../../support/trigger-body';

/**
 * GET /api/signals: stored signals newest first, by trigger and by state, paged;
 * the states are those of GET /api/signals/<id> (the store's and Temporal's).
 */
let rx: Receiver;
let h: Awaited<ReturnType<typeof startDispatchHarness>>;
beforeAll(async () => {
  rx = await startReceiver();
  h = await startDispatchHarness({ retry: { ...TEST_RETRY, max_attempts: 1 } });
});
afterAll(async () => {
  await h?.close();
  await rx?.close();
});

const createTrigger = async (model: string, path: string) =>
  (await postTrigger(h.app, triggerBody({ app: 'listing', model, webhooks: [{ url: rx.url(path), http_method: 'POST' }] }))).id;
const send = (id: string, model: string) =>
  request(h.app)
    .post('/api/signals')
    .send({ id, signal: 'post_save', app_label: 'listing', model_name: model, instance: { id } })
    .expect(202);
type Item = { id: string; state: string; trigger_ids: string[]; failed_actions?: boolean; workflow_id?: string };
const allPages = async (query: string, limit: number) => {
  const ids: string[] = [];
  let url: string | undefined = `/api/signals?${query}&limit=${limit}`;
  let pages = 0;
  while (url) {
    const res: request.Response = await request(h.app).get(url).expect(200);
    ids.push(...res.body.items.map((i: Item) => i.id));
    url = res.body.next_cursor ? `/api/signals?${query}&limit=${limit}&cursor=${res.body.next_cursor}` : undefined;
    if (res.body.next_cursor) expect(res.headers.link).toContain(`cursor=${res.body.next_cursor}`);
    pages++;
  }
  return { ids, pages };
};

test('lists by trigger, newest first, with each state, and pages without a gap or a repeat', async () => {
  const ok = await createTrigger('ok', '/ok');
  const bad = await createTrigger('bad', '/bad');
  rx.script('/bad', [{ status: 500 }]);
  for (let i = 0; i < 7; i++) await send(`ok-${i}`, 'ok');
  await send('bad-0', 'bad');
  await send('none-0', 'nobody');
  for (let i = 0; i < 7; i++) await waitForDispatch(h.app, `ok-${i}`);
  await waitForDispatch(h.app, 'bad-0');

  const byOk = await request(h.app).get(`/api/signals?trigger_id=${ok}`).expect(200);
  expect(byOk.body.items.map((i: Item) => i.id)).toEqual(['ok-6', 'ok-5', 'ok-4', 'ok-3', 'ok-2', 'ok-1', 'ok-0']);
  expect(byOk.body.items[0]).toMatchObject({
    state: 'completed',
    failed_actions: false,
    trigger_ids: [ok],
    workflow_id: 'signal-ok-6',
    signal: 'post_save',
    app_label: 'listing',
    model_name: 'ok',
  });
  expect(byOk.body.next_cursor).toBeNull();
  const byBad = await request(h.app).get(`/api/signals?trigger_id=${bad}`).expect(200);
  expect(byBad.body.items).toEqual([expect.objectContaining({ id: 'bad-0', state: 'completed', failed_actions: true })]);

  const unmatched = await request(h.app).get('/api/signals?state=unmatched').expect(200);
  expect(unmatched.body.items.map((i: Item) => i.id)).toEqual(['none-0']);
  expect(unmatched.body.items[0].trigger_ids).toEqual([]);
  // Every state agrees with GET /api/signals/<id>.
  for (const item of (await request(h.app).get('/api/signals?limit=100').expect(200)).body.items as Item[]) {
    expect((await request(h.app).get(`/api/signals/${item.id}`).expect(200)).body.state).toBe(item.state);
  }

  const paged = await allPages(`trigger_id=${ok}`, 3);
  expect(paged).toEqual({ ids: ['ok-6', 'ok-5', 'ok-4', 'ok-3', 'ok-2', 'ok-1', 'ok-0'], pages: 3 });
  const completed = await allPages('state=completed', 2);
  expect(completed.ids).toEqual(['bad-0', 'ok-6', 'ok-5', 'ok-4', 'ok-3', 'ok-2', 'ok-1', 'ok-0']);
  expect((await request(h.app).get('/api/signals?state=queued').expect(200)).body.items).toEqual([]);
  expect((await request(h.app).get(`/api/signals?trigger_id=${ok}&state=unmatched`).expect(200)).body.items).toEqual([]);
});

test('a signal the relay has not passed is queued', async () => {
  await h.relay!.stop();
  const t = await createTrigger('later', '/later');
  await send('later-0', 'later');
  const res = await request(h.app).get(`/api/signals?trigger_id=${t}&state=queued`).expect(200);
  expect(res.body.items).toEqual([expect.objectContaining({ id: 'later-0', state: 'queued' })]);
});

test('bad query parameters are named; a made-up cursor is only a position', async () => {
  const res = await request(h.app).get('/api/signals?trigger_id=nope&state=done&limit=101&cursor=%%&colour=red').expect(400);
  expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
    'query.colour',
    'query.cursor',
    'query.limit',
    'query.state',
    'query.trigger_id',
  ]);
  await request(h.app).get('/api/signals?limit=0').expect(400);
  await request(h.app).get('/api/signals?state=queued&state=running').expect(400);
  // Well-formed but no position: no such page.
  await request(h.app)
    .get(`/api/signals?cursor=${Buffer.from('99999999999999999999').toString('base64url')}`)
    .expect(404);
  await request(h.app)
    .get(`/api/signals?cursor=${Buffer.from('-1').toString('base64url')}`)
    .expect(404);
  await request(h.app).get('/api/signals?cursor=abc').expect(404);
  const fromOne = await request(h.app)
    .get(`/api/signals?cursor=${Buffer.from('1').toString('base64url')}`)
    .expect(200);
  expect(fromOne.body).toEqual({ items: [], next_cursor: null });
});
