import request from 'supertest';
import { startDispatchHarness } from '../../support/dispatch-harness';
import { startReceiver, Receiver } from '../../support/receiver';
import { waitForDispatch } from '../../support/signals';
import { postTrigger, triggerBody } from '../../support/trigger-body';

/**
 * A dispatch's status while its first attempts still run as one batch (a workflow task in
 * progress, so the workflow cannot be asked): the actions come from the plan, and those the
 * ledger already holds as delivered show as delivered, not pending.
 */
let rx: Receiver;
let h: Awaited<ReturnType<typeof startDispatchHarness>>;
beforeAll(async () => {
  rx = await startReceiver();
  h = await startDispatchHarness({});
});
afterAll(async () => {
  await h?.close();
  await rx?.close();
});

const HELD_MS = 4000;

const statesWhileHeld = async (path: string, fast: string, slow: string) => {
  await rx.waitFor(() => rx.on(fast).length >= 1 && rx.on(slow).length >= 1);
  const seen = (await request(h.app).get(path).expect(200)).body as { state: string; actions: { delivery_id: string; state: string }[] };
  return { state: seen.state, actions: seen.actions.map((a) => a.state) };
};

test('a running dispatch whose workflow is busy shows the deliveries its ledger holds, for the signal and for a redelivery', async () => {
  const trigger = await postTrigger(
    h.app,
    triggerBody({
      app: 'status',
      webhooks: [
        { url: rx.url('/fast'), http_method: 'POST' },
        { url: rx.url('/slow'), http_method: 'POST' },
      ],
    }),
  );
  expect(trigger.id).toBeDefined();
  rx.script('/slow', [{ delayMs: HELD_MS }, { delayMs: HELD_MS }]);
  await request(h.app)
    .post('/api/signals')
    .send({ id: 'status-busy-1', signal: 'post_save', app_label: 'status', model_name: 'order', instance: { id: 1 } })
    .expect(202);
  expect(await statesWhileHeld('/api/signals/status-busy-1', '/fast', '/slow')).toEqual({
    state: 'running',
    actions: ['delivered', 'pending'],
  });
  const done = await waitForDispatch(h.app, 'status-busy-1');

  const deliveryIds = (done.actions as { delivery_id: string }[]).map((a) => a.delivery_id);
  await request(h.app).post('/api/signals/status-busy-1/redeliver').send({ mode: 'as_dispatched', delivery_ids: deliveryIds }).expect(202);
  const before = { fast: rx.on('/fast').length, slow: rx.on('/slow').length };
  await rx.waitFor(() => rx.on('/fast').length > before.fast && rx.on('/slow').length > before.slow);
  const seen = (await request(h.app).get('/api/signals/status-busy-1/redeliveries/1').expect(200)).body as {
    state: string;
    actions: { state: string }[];
  };
  expect({ state: seen.state, actions: seen.actions.map((a) => a.state) }).toEqual({ state: 'running', actions: ['delivered', 'pending'] });
}, 60_000);
