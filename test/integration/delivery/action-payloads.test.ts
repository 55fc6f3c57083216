import request from 'supertest';
import { startDispatchHarness } from '../../support/dispatch-harness';
import { BROKER_TARGETS, BrokerTarget } from '../../support/brokers/targets';
import { startReceiver, Receiver } from '../../support/receiver';
import { waitForDispatch } from '../../support/signals';
import { postTrigger, triggerBody } from '../../support/trigger-body';

/**
 * A payload per action, end to end: one trigger with two webhooks that have payloads of their
 * own, one that has none (the trigger's) and a RabbitMQ queue with its own; one signal gives each
 * its own body, a dry run shows them, and the history and `as_of` keep the entries' payloads.
 */
let h: Awaited<ReturnType<typeof startDispatchHarness>>;
let rx: Receiver;
let rabbit: BrokerTarget;

beforeAll(async () => {
  rx = await startReceiver();
  rabbit = await BROKER_TARGETS.rabbitmq!();
  h = await startDispatchHarness(
    { brokers: { orders: rabbit.broker }, dynamic_values: { allowed_paths: ['env.ORDER_TOKEN'] } },
    { env: { ORDER_TOKEN: 'token-for-own' } },
  );
}, 90_000);
afterAll(async () => {
  await h?.close();
  await rabbit?.close();
  rx?.close();
});

const OWN = { kind: 'own', order: '{{ instance.id }}', token: '{{ env.ORDER_TOKEN }}' };
const SECOND = ['{{ instance.id }}', 'second'];
const QUEUED = 'order {{ instance.id }} queued';

test('each action sends its own body; the dry run shows each; history and as_of keep the entry payloads', async () => {
  const trigger = await postTrigger<{ id: string; webhooks: unknown[]; msg_broker_queues: unknown[] }>(
    h.app,
    triggerBody({
      webhooks: [
        { url: rx.url('/own'), http_method: 'POST', payload: OWN },
        { url: rx.url('/second'), http_method: 'POST', payload: SECOND },
        { url: rx.url('/shared'), http_method: 'POST' },
      ],
      msg_broker_queues: [{ name: 'orders', payload: QUEUED }],
      payload: { shared: '{{ instance.id }}' },
    }),
  );
  expect(trigger.webhooks[0]).toEqual({ url: rx.url('/own'), http_method: 'POST', payload: OWN });
  expect(trigger.msg_broker_queues[0]).toEqual({ name: 'orders', payload: QUEUED });

  const s = (
    await request(h.app)
      .post('/api/signals')
      .send({ signal: 'post_save', app_label: 'shop', model_name: 'order', instance: { id: 7 } })
      .expect(202)
  ).body as { id: string };
  await waitForDispatch(h.app, s.id, (x) => x.state === 'completed', 60_000);
  const [own] = rx.on('/own');
  const [second] = rx.on('/second');
  const [shared] = rx.on('/shared');
  expect(JSON.parse(own!.body)).toEqual({ kind: 'own', order: 7, token: 'token-for-own' });
  expect(own!.headers['content-type']).toBe('application/json');
  expect(own!.headers['webhook-id']).toBe(`${s.id}.${trigger.id}.w0`);
  // Two webhooks and a queue with payloads of their own: three bodies; a webhook with none sends the trigger's.
  expect(second!.body).toBe('[7,"second"]');
  expect(JSON.parse(shared!.body)).toEqual({ shared: 7 });
  expect(await rabbit.read(1)).toEqual([
    { body: 'order 7 queued', deliveryId: `${s.id}.${trigger.id}.q0`, contentType: 'text/plain; charset=utf-8' },
  ]);

  // The dry run renders each action as an attempt does, the dynamic value shown as its path.
  const dry = await request(h.app)
    .post(`/api/action-triggers/${trigger.id}/test`)
    .send({ signal: 'post_save', instance: { id: 8 } })
    .expect(200);
  const [w0, w1, w2, q0] = dry.body.actions as Array<{ request?: { body: string }; message?: { body: string; content_type: string } }>;
  expect(JSON.parse(w0!.request!.body)).toEqual({ kind: 'own', order: 8, token: '{{ env.ORDER_TOKEN }}' });
  expect(JSON.parse(w1!.request!.body)).toEqual([8, 'second']);
  expect(JSON.parse(w2!.request!.body)).toEqual({ shared: 8 });
  expect(q0!.message).toMatchObject({ body: 'order 8 queued', content_type: 'text/plain; charset=utf-8' });

  // Replaced without the entry payloads: the history and as_of still show the version that had them.
  const createdAt = new Date().toISOString();
  await new Promise((r) => setTimeout(r, 20));
  await request(h.app)
    .patch(`/api/action-triggers/${trigger.id}`)
    .send({ webhooks: [{ url: rx.url('/own'), http_method: 'POST' }], msg_broker_queues: [{ name: 'orders' }] })
    .expect(200);
  const history = (await request(h.app).get(`/api/action-triggers/${trigger.id}/history`).expect(200)).body as Array<{
    type: string;
    data: { definition: { webhooks: unknown[]; msg_broker_queues: unknown[] } };
  }>;
  expect(history.map((e) => e.type)).toEqual(['TriggerCreated', 'TriggerUpdated']);
  expect(history[0]!.data.definition.webhooks[0]).toMatchObject({ payload: OWN });
  expect(history[0]!.data.definition.msg_broker_queues[0]).toMatchObject({ payload: QUEUED });
  expect(history[1]!.data.definition.webhooks[0]).not.toHaveProperty('payload');
  const then = (await request(h.app).get(`/api/action-triggers/${trigger.id}`).query({ as_of: createdAt }).expect(200)).body;
  expect(then).toMatchObject({
    version: 1,
    webhooks: [{ payload: OWN }, { payload: SECOND }, {}],
    msg_broker_queues: [{ payload: QUEUED }],
  });
  const now = (await request(h.app).get(`/api/action-triggers/${trigger.id}`).expect(200)).body;
  expect(now.webhooks).toEqual([{ url: rx.url('/own'), http_method: 'POST' }]);
}, 120_000);

test("a bad template in the second webhook's payload is refused naming its place", async () => {
  const res = await request(h.app)
    .post('/api/action-triggers')
    .send(
      triggerBody({
        webhooks: [
          { url: rx.url('/a'), http_method: 'POST', payload: { ok: '{{ instance.id }}' } },
          { url: rx.url('/b'), http_method: 'POST', payload: { order: { total: '{{ instance.total | }}' } } },
        ],
      }),
    )
    .expect(400);
  expect(res.body.errors).toEqual([{ path: 'webhooks[1].payload.order.total', message: expect.stringContaining('template') }]);
});
