import request from 'supertest';
import { startDispatchHarness } from '../../support/dispatch-harness';
import { startReceiver, Receiver } from '../../support/receiver';
import { freePort } from '../../support/free-port';
import { isFinal, waitForDispatch } from '../../support/signals';
import { createMetrics } from '../../../src/observability/metrics';
import { MAX_LOCAL_FIRST_ATTEMPTS } from '../../../src/kernel/limits';
import { RecordedRun, saveHistoriesIfAsked } from '../../support/histories';
import { postTrigger, triggerBody } from '../../support/trigger-body';

/**
 * Cancelling a signal's pending deliveries: a delivery retrying against a dead host ends as
 * `cancelled` (who and when in the signal's status), is never attempted again (a receiver started
 * on that host afterwards gets nothing), is counted, and can be redelivered on purpose.
 */
let rx: Receiver;
const late: Receiver[] = [];
let h: Awaited<ReturnType<typeof startDispatchHarness>>;
const metrics = createMetrics({ defaultMetrics: false });
/** Dispatches that took a cancel, kept for the replay test (RECORD_HISTORIES=1). */
const recorded: RecordedRun[] = [];
beforeAll(async () => {
  rx = await startReceiver();
  // Retries every 0.5–1 s for minutes: a dead host keeps its delivery retrying through the test.
  h = await startDispatchHarness(
    { retry: { initial_interval_secs: 0.5, backoff_coefficient: 2, max_interval_secs: 1, max_attempts: 200 } },
    { metrics },
  );
});
afterAll(async () => {
  saveHistoriesIfAsked(recorded);
  await h?.close();
  await rx?.close();
  for (const r of late) await r.close();
});

const createTrigger = (model: string, urls: string[], extra: Record<string, unknown> = {}) =>
  postTrigger(
    h.app,
    triggerBody({
      app: 'cancel',
      model,
      webhooks: urls.map((url) => ({ url, http_method: 'POST' })),
      payload: { id: '{{ instance.id }}' },
      ...extra,
    }),
  );
const emit = (id: string, model: string) =>
  request(h.app)
    .post('/api/signals')
    .send({ id, signal: 'post_save', app_label: 'cancel', model_name: model, instance: { id: 'i1' } })
    .expect(202);

type Action = { delivery_id: string; state: string; attempts: number; cancelled_by?: string; cancelled_at?: string };
const actionsOf = async (id: string): Promise<Action[]> => (await request(h.app).get(`/api/signals/${id}`).expect(200)).body.actions;
/** Until every action at `indices` has been attempted at least twice (so it is retrying). */
const retrying = (indices: number[]) => (s: { state: string; actions?: Action[] }) =>
  indices.every((i) => (s.actions?.[i]?.attempts ?? 0) >= 2 && s.actions?.[i]?.state === 'retrying');
const deadUrl = async (path: string) => `http://127.0.0.1:${await freePort()}${path}`;
/** A receiver started where the dead URL pointed: the deliveries cancelled would reach it now. */
const revive = async (url: string) => {
  const r = await startReceiver({}, '127.0.0.1', Number(new URL(url).port));
  late.push(r);
  return r;
};
const cancelledCount = async () =>
  (await metrics.registry.getSingleMetricAsString('action_triggers_deliveries_cancelled_total')).match(/kind="webhook"\} (\d+)/)?.[1];

test('a delivery retrying against a dead host is cancelled: shown cancelled with who and when, never attempted again, counted; a delivered one is a 409', async () => {
  const dead = await deadUrl('/dead');
  await createTrigger('dead', [dead, rx.url('/live')]);
  await emit('c-1', 'dead');
  const running = await waitForDispatch(h.app, 'c-1', retrying([0]));
  const [deadId, liveId] = running.actions.map((a: Action) => a.delivery_id);
  expect(running.actions[1].state).toBe('delivered');

  const before = Date.now();
  const res = await request(h.app).post('/api/signals/c-1/cancel').expect(200);
  expect(res.body).toEqual({
    id: 'c-1',
    cancelled: [{ delivery_id: deadId, workflow_id: 'signal-c-1' }],
    cancelled_by: 'anonymous',
    cancelled_at: expect.any(String),
  });
  expect(Date.parse(res.body.cancelled_at)).toBeGreaterThanOrEqual(before - 1000);

  // The dispatch ends at once (nothing else was open); its status keeps who and when.
  const done = await waitForDispatch(h.app, 'c-1', isFinal, 10_000);
  expect(done.actions[0]).toMatchObject({
    delivery_id: deadId,
    state: 'cancelled',
    cancelled_by: 'anonymous',
    cancelled_at: res.body.cancelled_at,
  });
  expect(done.actions[1]).toMatchObject({ delivery_id: liveId, state: 'delivered' });
  const attemptsAtCancel = done.actions[0].attempts;
  recorded.push({ name: 'cancelled while retrying against a dead host', workflowId: 'signal-c-1' });

  // The host comes back: past several retry intervals, it has received nothing.
  const revived = await revive(dead);
  await new Promise((r) => setTimeout(r, 4000));
  expect(revived.received).toEqual([]);
  expect((await actionsOf('c-1'))[0]).toMatchObject({ state: 'cancelled', attempts: attemptsAtCancel });
  expect(await cancelledCount()).toBe('1');

  // Nothing left: all, a delivered one named, an unknown id, an unknown signal.
  const again = await request(h.app).post('/api/signals/c-1/cancel').send({}).expect(409);
  expect(again.body.detail).toMatch(/nothing to cancel/);
  const delivered = await request(h.app)
    .post('/api/signals/c-1/cancel')
    .send({ delivery_ids: [liveId, deadId] })
    .expect(409);
  expect(delivered.body.errors).toEqual([
    { path: 'delivery_ids[0]', message: 'was delivered' },
    { path: 'delivery_ids[1]', message: 'was cancelled already' },
  ]);
  const stranger = await request(h.app)
    .post('/api/signals/c-1/cancel')
    .send({ delivery_ids: ['c-1.nope.w0'] })
    .expect(409);
  expect(stranger.body.errors).toEqual([{ path: 'delivery_ids[0]', message: 'is not a delivery of this signal' }]);
  await request(h.app).post('/api/signals/no-such-signal/cancel').expect(404);
  const bad = await request(h.app).post('/api/signals/c-1/cancel').send({ delivery_ids: [], why: 1 }).expect(400);
  expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['delivery_ids', 'why']);

  // Sent again only when asked: a redelivery of the cancelled one reaches the revived host.
  await request(h.app).post('/api/signals/c-1/redeliver').send({ mode: 'as_dispatched' }).expect(202);
  await revived.waitFor(() => revived.received.length === 1, 20_000);
  expect(revived.received[0]!.headers['webhook-id']).toBe(deadId);
}, 90_000);

test('only the named delivery is cancelled; the other keeps retrying until it too is cancelled', async () => {
  const [a, b] = [await deadUrl('/a'), await deadUrl('/b')];
  await createTrigger('two', [a, b]);
  await emit('c-2', 'two');
  const running = await waitForDispatch(h.app, 'c-2', retrying([0, 1]));
  const [aId, bId] = running.actions.map((x: Action) => x.delivery_id);
  const one = await request(h.app)
    .post('/api/signals/c-2/cancel')
    .send({ delivery_ids: [aId] })
    .expect(200);
  expect(one.body.cancelled).toEqual([{ delivery_id: aId, workflow_id: 'signal-c-2' }]);
  const revivedA = await revive(a);
  const revivedB = await revive(b);
  // b is still retrying: it reaches its host once it is back; a never does.
  await revivedB.waitFor(() => revivedB.received.length === 1, 20_000);
  expect(revivedB.received[0]!.headers['webhook-id']).toBe(bId);
  const done = await waitForDispatch(h.app, 'c-2', isFinal, 10_000);
  expect(done.actions.map((x: Action) => x.state)).toEqual(['cancelled', 'delivered']);
  await new Promise((r) => setTimeout(r, 2500));
  expect(revivedA.received).toEqual([]);
}, 90_000);

test(`a dispatch of more than ${MAX_LOCAL_FIRST_ATTEMPTS} actions (first attempts in batches) is cancelled whole`, async () => {
  const urls = await Promise.all(Array.from({ length: MAX_LOCAL_FIRST_ATTEMPTS + 2 }, (_, i) => deadUrl(`/many/${i}`)));
  await createTrigger('many', urls);
  await emit('c-3', 'many');
  await waitForDispatch(h.app, 'c-3', retrying(urls.map((_, i) => i)));
  const res = await request(h.app).post('/api/signals/c-3/cancel').expect(200);
  expect(res.body.cancelled).toHaveLength(urls.length);
  const done = await waitForDispatch(h.app, 'c-3', isFinal, 10_000);
  expect(new Set(done.actions.map((x: Action) => x.state))).toEqual(new Set(['cancelled']));
  recorded.push({ name: 'cancelled after its first attempts in a batch', workflowId: 'signal-c-3' });
  const revived = await Promise.all(urls.map(revive));
  await new Promise((r) => setTimeout(r, 2500));
  expect(revived.flatMap((r) => r.received)).toEqual([]);
}, 90_000);

test('a first attempt hanging inside its workflow task: the cancel is taken at the task heartbeat, and nothing is attempted after that one request', async () => {
  const hanging = await startReceiver({ status: 200, delayMs: 60_000 });
  late.push(hanging);
  await createTrigger('hangs', [], { webhooks: [{ url: hanging.url('/hang'), http_method: 'POST', timeout_secs: 30 }] });
  await emit('c-5', 'hangs');
  await hanging.waitFor(() => hanging.received.length === 1);
  // Its view shows the actions as planned while the task runs; the cancel waits for the task.
  const res = await request(h.app).post('/api/signals/c-5/cancel').expect(200);
  expect(res.body.cancelled).toHaveLength(1);
  const done = await waitForDispatch(h.app, 'c-5', isFinal, 10_000);
  expect(done.actions[0]).toMatchObject({ state: 'cancelled', attempts: 0 });
  await new Promise((r) => setTimeout(r, 2500));
  expect(hanging.received).toHaveLength(1);
}, 90_000);

test('in order per instance: a later signal waiting behind a stuck one is cancelled while it waits, and is never sent', async () => {
  const dead = await deadUrl('/ordered');
  await createTrigger('ordered', [dead], { ordering: 'per_instance' });
  await emit('c-4a', 'ordered');
  await waitForDispatch(h.app, 'c-4a', retrying([0]));
  await emit('c-4b', 'ordered');
  const waiting = await waitForDispatch(h.app, 'c-4b', (s: { state: string; actions?: Action[] }) => s.actions?.[0]?.state === 'waiting');
  expect(waiting.state).toBe('running');
  await request(h.app).post('/api/signals/c-4b/cancel').expect(200);
  // The first ends too; its turn passes to the second, which has nothing left to send.
  await request(h.app).post('/api/signals/c-4a/cancel').expect(200);
  const second = await waitForDispatch(h.app, 'c-4b', isFinal, 20_000);
  expect(second.actions[0]).toMatchObject({ state: 'cancelled', attempts: 0, cancelled_by: 'anonymous' });
  recorded.push({ name: 'cancelled while waiting for its turn in its instance order', workflowId: 'signal-c-4b' });
  const revived = await revive(dead);
  await new Promise((r) => setTimeout(r, 2500));
  expect(revived.received).toEqual([]);
}, 90_000);
