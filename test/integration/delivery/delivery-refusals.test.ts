import request from 'supertest';
import { startDispatchHarness } from '../../support/dispatch-harness';
import { startReceiver } from '../../support/receiver';
import { testServers } from '../../support/servers';
import { waitForDispatch } from '../../support/signals';
import { storeTrigger } from '../../support/store-trigger';
import { postTrigger, triggerBody } from '../../support/trigger-body';

type Harness = Awaited<ReturnType<typeof startDispatchHarness>>;

let rx: Awaited<ReturnType<typeof startReceiver>>;
let h: Harness;
beforeAll(async () => {
  rx = await startReceiver();
  // Only the receiver's lower-case one-segment paths are allowed (the stored trigger below has another).
  const port = new URL(rx.url('/')).port;
  h = await startDispatchHarness({
    brokers: { orders: { broker_type: 'rabbitmq', conn_details: { url: testServers().rabbit.url } } },
    webhook_url_patterns: [`^http://127\\.0\\.0\\.1:${port}/[a-z-]+$`],
  });
});
afterAll(async () => {
  await h.close();
  await rx.close();
});

const emit = async (modelName: string, instance: Record<string, unknown> = {}) =>
  (await request(h.app).post('/api/signals').send({ signal: 'post_save', app_label: 'shop', model_name: modelName, instance }).expect(202))
    .body.id as string;

test('a header value that holds CR LF only once rendered fails the action at once, naming the header but not the value', async () => {
  await postTrigger(
    h.app,
    triggerBody({
      model: 'injected',
      webhooks: [{ url: rx.url('/injected'), http_method: 'POST', headers: { 'X-Order-Ref': 'ref {{ instance.ref }}' } }],
    }),
  );
  const status = await waitForDispatch(h.app, await emit('injected', { ref: 'a\r\nX-Admin: yes' }));
  const action = status.actions[0];
  expect([action.state, action.attempts]).toEqual(['failed', 1]);
  expect(action.last_error).toMatch(/^header "X-Order-Ref" must not contain control characters/);
  expect(JSON.stringify(status)).not.toContain('X-Admin');
  expect(rx.on('/injected')).toHaveLength(0);
});

test('a stored trigger whose header the rules now refuse fails at delivery, not retried', async () => {
  await storeTrigger(
    h,
    triggerBody({
      model: 'stored-header',
      webhooks: [{ url: rx.url('/stored'), http_method: 'POST', headers: { Host: 'internal.example' } }],
    }),
  );
  const status = await waitForDispatch(h.app, await emit('stored-header'));
  expect(status.actions[0]).toEqual(
    expect.objectContaining({
      state: 'failed',
      attempts: 1,
      last_error: expect.stringContaining('header "Host" is set by the HTTP client'),
    }),
  );
  expect(rx.on('/stored')).toHaveLength(0);
});

test("a stored webhook URL today's webhook_url_patterns refuse fails at delivery, nothing sent", async () => {
  await storeTrigger(
    h,
    triggerBody({
      model: 'old-url',
      webhooks: [
        { url: rx.url('/Forbidden/1'), http_method: 'POST' },
        { url: rx.url('/allowed'), http_method: 'POST' },
      ],
    }),
  );
  const status = await waitForDispatch(h.app, await emit('old-url'));
  expect(status.actions[0]).toEqual(
    expect.objectContaining({ state: 'failed', attempts: 1, last_error: expect.stringContaining('not allowed by webhook_url_patterns') }),
  );
  // One refused action never blocks the others.
  expect(status.actions[1]).toEqual(expect.objectContaining({ state: 'delivered' }));
  expect(rx.on('/Forbidden/1')).toHaveLength(0);
  expect(rx.on('/allowed')).toHaveLength(1);
});

test('conn_details a broker does not let triggers set fail the action at delivery (the config may have changed since)', async () => {
  await storeTrigger(
    h,
    triggerBody({
      model: 'rerouted',
      msg_broker_queues: [{ name: 'orders', conn_details: { url: 'amqp://guest:guest@203.0.113.5:5672' }, parameters: { queue: 'x' } }],
    }),
  );
  const status = await waitForDispatch(h.app, await emit('rerouted'));
  expect(status.actions[0]).toEqual(
    expect.objectContaining({ state: 'failed', attempts: 1, last_error: 'broker orders does not let triggers set conn_details.url' }),
  );
});

test('a queue name AMQP cannot carry (over 255 bytes once rendered) fails at once instead of being retried', async () => {
  await postTrigger(
    h.app,
    triggerBody({ model: 'long-queue', msg_broker_queues: [{ name: 'orders', parameters: { queue: 'q-{{ instance.name }}' } }] }),
  );
  const status = await waitForDispatch(h.app, await emit('long-queue', { name: 'x'.repeat(300) }));
  expect(status.actions[0]).toEqual(
    expect.objectContaining({
      state: 'failed',
      attempts: 1,
      last_error: "broker orders: parameters.queue is longer than 255 bytes (AMQP's limit)",
    }),
  );
});
