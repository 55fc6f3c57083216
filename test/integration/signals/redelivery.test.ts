import request from 'supertest';
import { startDispatchHarness, TEST_RETRY } from '../../support/dispatch-harness';
import { startReceiver, Receiver } from '../../support/receiver';
import { isFinal, waitForDispatch } from '../../support/signals';
import { redeliverFailed } from '../../../src/signals/redelivery/bulk';
import { BULK_REDELIVERY_CONCURRENCY } from '../../../src/kernel/limits';
import { postTrigger, triggerBody } from '../../support/trigger-body';

/**
 * Redeliver: a new dispatch of a stored signal's actions, linked from the original,
 * keeping each delivery id (`webhook-id`); as dispatched or with the triggers as they are now.
 */
let rx: Receiver;
let h: Awaited<ReturnType<typeof startDispatchHarness>>;
beforeAll(async () => {
  rx = await startReceiver();
  h = await startDispatchHarness({ retry: { ...TEST_RETRY, max_attempts: 2 } });
});
afterAll(async () => {
  await h?.close();
  await rx?.close();
});

const order = (id: string, model = 'order') => ({ id, signal: 'post_save', app_label: 'redeliver', model_name: model, instance: { id } });
const createTrigger = (model: string, paths: string[], payload: Record<string, unknown>) =>
  postTrigger(
    h.app,
    triggerBody({ app: 'redeliver', model, webhooks: paths.map((p) => ({ url: rx.url(p), http_method: 'POST' })), payload }),
  );
const waitForRedelivery = async (id: string, n: number) => {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await request(h.app).get(`/api/signals/${id}/redeliveries/${n}`).expect(200);
    if (isFinal(res.body)) return res.body;
    if (Date.now() > deadline) throw new Error(`redelivery ${n} of ${id} not done: ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};
const bodiesOn = (path: string) => rx.on(path).map((r) => JSON.parse(r.body) as { v: string });

test('a failed action is redelivered with its webhook-id: as dispatched sends the old body, current the edited one; only named actions', async () => {
  const trigger = await createTrigger('order', ['/a', '/b'], { v: 'one {{ instance.id }}' });
  rx.script('/a', [{ status: 500 }, { status: 500 }]);
  await request(h.app).post('/api/signals').send(order('rd-1')).expect(202);
  const first = await waitForDispatch(h.app, 'rd-1');
  expect(first.actions.map((a: { state: string }) => a.state)).toEqual(['failed', 'delivered']);
  const [aId, bId] = first.actions.map((a: { delivery_id: string }) => a.delivery_id);
  // The trigger changes after the dispatch.
  await request(h.app)
    .patch(`/api/action-triggers/${trigger.id}`)
    .set('If-Match', `"${trigger.version}"`)
    .send({ payload: { v: 'two {{ instance.id }}' } })
    .expect(200);

  // as_dispatched, no ids: every action not delivered (only /a), at the recorded version.
  const asked = await request(h.app).post('/api/signals/rd-1/redeliver').send({ mode: 'as_dispatched' }).expect(202);
  expect(asked.body).toMatchObject({
    id: 'rd-1',
    number: 1,
    mode: 'as_dispatched',
    delivery_ids: [aId],
    redelivery_of: 'signal-rd-1',
    workflow_id: 'signal-rd-1/redelivery-1',
    state: 'queued',
  });
  const one = await waitForRedelivery('rd-1', 1);
  expect(one).toMatchObject({
    state: 'completed',
    redelivery_of: 'signal-rd-1',
    workflow_id: 'signal-rd-1/redelivery-1',
    mode: 'as_dispatched',
  });
  expect(one.actions).toEqual([expect.objectContaining({ delivery_id: aId, state: 'delivered', version: trigger.version })]);
  expect(bodiesOn('/a').map((b) => b.v)).toEqual(['one rd-1', 'one rd-1', 'one rd-1']);
  expect(new Set(rx.on('/a').map((r) => r.headers['webhook-id']))).toEqual(new Set([aId]));
  expect(rx.on('/b')).toHaveLength(1);

  // Everything delivered now: nothing to do unless ids are named.
  expect((await request(h.app).post('/api/signals/rd-1/redeliver').send({ mode: 'as_dispatched' }).expect(409)).body.detail).toMatch(
    /every action was delivered/,
  );
  // current, one named action (delivered before): sent again with the edited payload, same webhook-id.
  await request(h.app)
    .post('/api/signals/rd-1/redeliver')
    .send({ mode: 'current', delivery_ids: [bId] })
    .expect(202);
  const two = await waitForRedelivery('rd-1', 2);
  expect(two.actions).toEqual([expect.objectContaining({ delivery_id: bId, state: 'delivered', version: trigger.version + 1 })]);
  expect(bodiesOn('/b').map((b) => b.v)).toEqual(['one rd-1', 'two rd-1']);
  expect(rx.on('/b').map((r) => r.headers['webhook-id'])).toEqual([bId, bId]);
  expect(rx.on('/a')).toHaveLength(3);

  // The original lists its redeliveries.
  const original = (await request(h.app).get('/api/signals/rd-1').expect(200)).body;
  expect(original.redeliveries).toEqual([
    expect.objectContaining({ number: 1, workflow_id: 'signal-rd-1/redelivery-1', mode: 'as_dispatched', delivery_ids: [aId] }),
    expect.objectContaining({ number: 2, workflow_id: 'signal-rd-1/redelivery-2', mode: 'current', delivery_ids: [bId] }),
  ]);

  // The trigger's dispatches, newest first, a page at a time (visibility catches up within moments).
  const listed = async (query: string) =>
    (await request(h.app).get(`/api/action-triggers/${trigger.id}/dispatches${query}`).expect(200)).body;
  for (
    let i = 0;
    (await listed('')).items.length < 3 || (await listed('')).items.some((d: { state: string }) => d.state === 'running');
    i++
  ) {
    if (i > 100) throw new Error(JSON.stringify(await listed('')));
    await new Promise((r) => setTimeout(r, 100));
  }
  const pages = [];
  let cursor: string | null = '';
  while (cursor !== null) {
    const page: { items: unknown[]; next_cursor: string | null } = await listed(`?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
    pages.push(...page.items);
    cursor = page.next_cursor;
  }
  expect(pages).toEqual([
    expect.objectContaining({
      workflow_id: 'signal-rd-1/redelivery-2',
      signal_id: 'rd-1',
      redelivery_of: 'signal-rd-1',
      state: 'completed',
      failed: false,
    }),
    expect.objectContaining({
      workflow_id: 'signal-rd-1/redelivery-1',
      signal_id: 'rd-1',
      redelivery_of: 'signal-rd-1',
      state: 'completed',
      failed: false,
    }),
    expect.objectContaining({ workflow_id: 'signal-rd-1', signal_id: 'rd-1', state: 'completed', failed: true }),
  ]);
  const badQuery = await request(h.app).get(`/api/action-triggers/${trigger.id}/dispatches?limit=0&cursor=!&x=1`).expect(400);
  expect(badQuery.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['query.cursor', 'query.limit', 'query.x']);
  const forged = await request(h.app).get(`/api/action-triggers/${trigger.id}/dispatches?cursor=2M`).expect(404);
  expect(forged.body.detail).toMatch(/cursor/);
  await request(h.app).get('/api/action-triggers/not-a-trigger/dispatches').expect(404);
}, 90_000);

test('unknown signal 404; a dispatch still running, or an unknown delivery id (named), 409; bad bodies 400 naming the field', async () => {
  await createTrigger('slow', ['/slow'], { v: '{{ instance.id }}' });
  await request(h.app).post('/api/signals/no-such-signal/redeliver').send({ mode: 'current' }).expect(404);
  rx.script('/slow', [{ delayMs: 3000 }]);
  await request(h.app).post('/api/signals').send(order('rd-slow', 'slow')).expect(202);
  const busy = await request(h.app).post('/api/signals/rd-slow/redeliver').send({ mode: 'as_dispatched', delivery_ids: [] }).expect(400);
  expect(busy.body.errors).toEqual([expect.objectContaining({ path: 'delivery_ids' })]);
  // While its first attempt runs locally (a workflow task in progress), its status answers at once:
  // before the receiver replies (it holds the reply 3 s), not once the task completes.
  let answeredAt: number;
  for (;;) {
    const shown = (await request(h.app).get('/api/signals/rd-slow').expect(200)).body;
    if (shown.state === 'running') {
      answeredAt = Date.now();
      expect(shown.actions).toEqual([expect.objectContaining({ state: 'pending' })]);
      break;
    }
    expect(shown.state).toBe('queued');
  }
  await rx.waitFor(() => rx.on('/slow').length === 1);
  expect(answeredAt).toBeLessThan(rx.on('/slow')[0]!.at + 3000);
  const running = await request(h.app).post('/api/signals/rd-slow/redeliver').send({ mode: 'as_dispatched' }).expect(409);
  expect(running.body.detail).toMatch(/still (queued|running)/);
  const done = await waitForDispatch(h.app, 'rd-slow');
  const bad = await request(h.app)
    .post('/api/signals/rd-slow/redeliver')
    .send({ mode: 'later', delivery_ids: ['nope', done.actions[0].delivery_id, 7] })
    .expect(400);
  expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['delivery_ids[2]', 'mode']);
  const unknownId = await request(h.app)
    .post('/api/signals/rd-slow/redeliver')
    .send({ mode: 'as_dispatched', delivery_ids: [done.actions[0].delivery_id, 'nope'] })
    .expect(409);
  expect(unknownId.body.errors).toEqual([{ path: 'delivery_ids[1]', message: expect.stringMatching(/not an action/) }]);
  await request(h.app).get('/api/signals/rd-slow/redeliveries/1').expect(404);
  expect(rx.on('/slow')).toHaveLength(1);
}, 60_000);

test('redeliver-failed redelivers every failed dispatch of the trigger since a time, and says how many', async () => {
  const since = new Date().toISOString();
  const trigger = await createTrigger('bulk', ['/c'], { v: '{{ instance.id }}' });
  rx.script('/c', [{ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 }]);
  await request(h.app)
    .post('/api/signals')
    .send([order('rd-c1', 'bulk'), order('rd-c2', 'bulk')])
    .expect(202);
  for (const id of ['rd-c1', 'rd-c2']) expect((await waitForDispatch(h.app, id)).actions[0].state).toBe('failed');
  // Visibility is eventually consistent: wait until Temporal lists both as failed.
  for (let i = 0; (await h.dispatch.failedSince(trigger.id, new Date(since), 10)).length < 2; i++) {
    if (i > 100) throw new Error('failed dispatches never listed');
    await new Promise((r) => setTimeout(r, 100));
  }
  await request(h.app).post(`/api/action-triggers/${trigger.id}/redeliver-failed`).send({ since: 'yesterday' }).expect(400);
  const bulk = await request(h.app).post(`/api/action-triggers/${trigger.id}/redeliver-failed`).send({ since }).expect(202);
  expect(bulk.body).toEqual({ redelivered: 2, skipped: { busy: 0, nothing_left: 0, not_stored: 0 }, truncated: false });
  for (const id of ['rd-c1', 'rd-c2']) expect((await waitForRedelivery(id, 1)).actions[0].state).toBe('delivered');
  const received = rx.on('/c').map((r) => r.headers['webhook-id']);
  expect(new Set(received).size).toBe(2);
  // Asked again: both already delivered by their redelivery.
  const again = await request(h.app).post(`/api/action-triggers/${trigger.id}/redeliver-failed`).send({ since }).expect(202);
  expect(again.body).toEqual({ redelivered: 0, skipped: { busy: 0, nothing_left: 2, not_stored: 0 }, truncated: false });
  await request(h.app).post('/api/action-triggers/00000000-0000-7000-8000-000000000000/redeliver-failed').send({ since }).expect(404);
}, 90_000);

test('redeliver-failed works on several signals at once, at most BULK_REDELIVERY_CONCURRENCY, and counts each once', async () => {
  const since = new Date();
  const trigger = await createTrigger('many', ['/m'], { v: '{{ instance.id }}' });
  const ids = Array.from({ length: 12 }, (_, i) => `rd-m${i}`);
  rx.script(
    '/m',
    ids.flatMap(() => [{ status: 500 }, { status: 500 }]),
  );
  await request(h.app)
    .post('/api/signals')
    .send(ids.map((id) => order(id, 'many')))
    .expect(202);
  for (const id of ids) expect((await waitForDispatch(h.app, id)).actions[0].state).toBe('failed');
  for (let i = 0; (await h.dispatch.failedSince(trigger.id, since, 20)).length < ids.length; i++) {
    if (i > 100) throw new Error('failed dispatches never listed');
    await new Promise((r) => setTimeout(r, 100));
  }
  // The real dispatch client, its status calls counted while they run.
  let running = 0;
  let most = 0;
  const dispatch = {
    ...h.dispatch,
    status: async (...args: Parameters<typeof h.dispatch.status>) => {
      most = Math.max(most, ++running);
      try {
        return await h.dispatch.status(...args);
      } finally {
        running--;
      }
    },
  };
  const counts = await redeliverFailed({ store: h.store, dispatch, plan: h.plan, now: () => new Date() }, trigger.id, since);
  expect(counts).toEqual({ redelivered: ids.length, skipped: { busy: 0, nothing_left: 0, not_stored: 0 }, truncated: false });
  expect(most).toBeGreaterThan(1);
  expect(most).toBeLessThanOrEqual(BULK_REDELIVERY_CONCURRENCY);
  for (const id of ids) expect((await waitForRedelivery(id, 1)).actions[0].state).toBe('delivered');
  expect(new Set(rx.on('/m').map((r) => r.headers['webhook-id'])).size).toBe(ids.length);
}, 90_000);
