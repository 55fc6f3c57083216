import request from 'supertest';
import { startDispatchHarness } from '../../support/dispatch-harness';
import { Receiver, startReceiver } from '../../support/receiver';
import { waitForDispatch } from '../../support/signals';
import { turnStateOf } from '../../../src/ordering/turns';
import { postTrigger, triggerBody } from '../../support/trigger-body';

/**
 * An operator may terminate a dispatch that holds its instance's turn (a receiver that will not
 * recover): the dispatch after it does not wait for ever. It looks itself after its check time
 * (1 s here, then 2, 4, …; 5 minutes in the service, doubling up to an hour), passes the closed
 * one over and goes. Real Temporal dev server, worker in this process, real receiver.
 */
let h: Awaited<ReturnType<typeof startDispatchHarness>>;
let rx: Receiver;

beforeAll(async () => {
  rx = await startReceiver();
  rx.respond((r) => (r.path === '/held' && (JSON.parse(r.body) as { n: number }).n === 0 ? { status: 503 } : undefined));
  h = await startDispatchHarness(
    { retry: { initial_interval_secs: 0.2, backoff_coefficient: 1, max_interval_secs: 0.2, max_attempts: 1000 } },
    { turnCheckSecs: 1 },
  );
}, 60_000);

afterAll(async () => {
  await h?.close();
  await rx?.close();
});

test('a dispatch terminated while it holds its turn is passed over: the next one for the instance goes, the turns say so', async () => {
  const t = await postTrigger(
    h.app,
    triggerBody({
      app: 'ord',
      model: 'held',
      webhooks: [{ url: rx.url('/held'), http_method: 'POST' }],
      payload: { n: '{{ instance.n }}' },
      ordering: 'per_instance',
    }),
  );
  const signals = [0, 1].map((n) => ({ signal: 'post_save', app_label: 'ord', model_name: 'held', instance: { id: 'h1', n } }));
  const [first, second] = (await request(h.app).post('/api/signals').send(signals).expect(202)).body as Array<{
    id: string;
    workflow_id: string;
  }>;
  await waitForDispatch(h.app, first!.id, (s) => (s as unknown as { actions: Array<{ state: string }> }).actions[0]?.state === 'retrying');
  // Well past its check time, the second still waits: the first runs.
  await new Promise((r) => setTimeout(r, 2500));
  // (A status read while its check runs in a workflow task shows the actions as planned: read until one shows them.)
  const waiting = await waitForDispatch(
    h.app,
    second!.id,
    (s) => (s as unknown as { actions: Array<{ state: string }> }).actions[0]?.state === 'waiting',
    10_000,
  );
  expect(waiting).toMatchObject({ state: 'running', actions: [{ state: 'waiting', attempts: 0 }] });
  expect(rx.on('/held').every((r) => (JSON.parse(r.body) as { n: number }).n === 0)).toBe(true);

  await h.client.workflow.getHandle(first!.workflow_id).terminate('the receiver will not recover');
  const done = await waitForDispatch(h.app, second!.id, undefined, 30_000);
  expect(done.actions[0]).toMatchObject({ state: 'delivered', attempts: 1 });
  expect(rx.on('/held').filter((r) => (JSON.parse(r.body) as { n: number }).n === 1)).toHaveLength(1);
  // Both turns ended in the store: the terminated one's by the one after it.
  expect(turnStateOf(await h.store.read(`ordered-${t.id}-h1`)).pending).toEqual([]);
}, 60_000);
