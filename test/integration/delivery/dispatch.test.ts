import { join } from 'node:path';
import { connect } from 'amqplib';
import request from 'supertest';
import { signatureOf } from '../../../src/destinations/webhook/signing';
import { startDispatchHarness } from '../../support/dispatch-harness';
import { startReceiver, Receiver } from '../../support/receiver';
import { testServers } from '../../support/servers';
import { waitForDispatch } from '../../support/signals';
import { postTrigger, triggerBody } from '../../support/trigger-body';
import { RecordedRun, saveHistoriesIfAsked } from '../../support/histories';

const SECRET = 'whsec_' + Buffer.from('test-signing-key-0123456789').toString('base64');
const TOKEN = 'tok-3f9a1c'; // resolved from env at delivery time

let h: Awaited<ReturnType<typeof startDispatchHarness>>;
let rx: Receiver;
let queue: string;

beforeAll(async () => {
  rx = await startReceiver();
  queue = `orders-${Date.now()}`;
  h = await startDispatchHarness(
    {
      brokers: { orders: { broker_type: 'rabbitmq', conn_details: { url: testServers().rabbit.url }, params: { queue } } },
      dynamic_values: {
        module: join(__dirname, '../../fixtures/dynamic-values.js'),
        allowed_paths: ['env.AT_TEST_WEBHOOK_TOKEN', 'secrets.token'],
      },
      signing_secret: SECRET,
    },
    { env: { ...process.env, AT_TEST_WEBHOOK_TOKEN: TOKEN } },
  );
});
/** RECORD_HISTORIES=1 saves each test's first dispatch history for test/integration/delivery/replay.test.ts. */
const recorded: RecordedRun[] = [];
afterAll(async () => {
  try {
    saveHistoriesIfAsked(recorded);
  } finally {
    await h?.close();
    await rx?.close();
  }
});

const createTrigger = (over: Record<string, unknown>) => postTrigger(h.app, triggerBody(over));

const emit = async (body: Record<string, unknown>) => {
  const accepted = (await request(h.app).post('/api/signals').send(body).expect(202)).body as {
    id: string;
    workflow_id: string;
    duplicate: boolean;
  };
  const name = expect.getState().currentTestName ?? 'unnamed';
  if (!recorded.some((r) => r.name === name)) recorded.push({ name, workflowId: accepted.workflow_id });
  return accepted;
};

const statusOf = (id: string) => waitForDispatch(h.app, id);

const consumeOne = async (q: string, timeoutMs = 15_000) => {
  const conn = await connect(testServers().rabbit.url);
  const ch = await conn.createChannel();
  // The publisher declares the queue on first use; declaring it here too (same arguments) lets us poll before that.
  await ch.assertQueue(q, { durable: true });
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const msg = await ch.get(q, { noAck: true });
      if (msg) return msg;
      if (Date.now() > deadline) throw new Error(`no message on ${q}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await conn.close();
  }
};

test('one signal: two webhook requests with the rendered body, resolved header and valid signature, and one queue message', async () => {
  const trigger = await createTrigger({
    webhooks: [
      { url: rx.url('/a'), http_method: 'POST', headers: { Authorization: 'Bearer {{ env.AT_TEST_WEBHOOK_TOKEN }}' } },
      { url: rx.url('/b'), http_method: 'put', timeout_secs: 3 },
    ],
    msg_broker_queues: [{ name: 'orders' }],
    payload: { order: '{{ instance.id }}', total: '{{ instance.total }}', note: 'order {{ instance.number }} saved' },
  });
  const signal = await emit({
    signal: 'post_save',
    app_label: 'shop',
    model_name: 'order',
    instance: { id: 42, total: 9.5, number: 'A-7' },
  });
  expect(signal.workflow_id).toBe(`signal-${signal.id}`);
  await rx.waitFor(() => rx.on('/a').length >= 1 && rx.on('/b').length >= 1);
  const [a, b] = [rx.on('/a')[0]!, rx.on('/b')[0]!];
  const expected = { order: 42, total: 9.5, note: 'order A-7 saved' };
  expect(a.method).toBe('POST');
  expect(b.method).toBe('PUT');
  for (const r of [a, b]) {
    expect(JSON.parse(r.body)).toEqual(expected);
    expect(r.headers['content-type']).toBe('application/json');
    const id = r.headers['webhook-id'] as string;
    const ts = Number(r.headers['webhook-timestamp']);
    expect(r.headers['webhook-signature']).toBe(signatureOf(SECRET, id, ts, r.body));
  }
  expect(a.headers.authorization).toBe(`Bearer ${TOKEN}`);
  expect(a.headers['webhook-id']).toBe(`${signal.id}.${trigger.id}.w0`);
  const msg = await consumeOne(queue);
  expect(JSON.parse(msg.content.toString())).toEqual(expected);
  expect(msg.properties.messageId).toBe(`${signal.id}.${trigger.id}.q0`);
  expect(msg.properties.contentType).toBe('application/json');
  expect(msg.properties.deliveryMode).toBe(2);
  const status = await statusOf(signal.id);
  expect(status.triggers).toEqual([{ trigger_id: trigger.id, version: 1 }]);
  expect(status.actions.map((x: { state: string; attempts: number }) => [x.state, x.attempts])).toEqual([
    ['delivered', 1],
    ['delivered', 1],
    ['delivered', 1],
  ]);
  await request(h.app).patch(`/api/action-triggers/${trigger.id}`).send({ active: false }).expect(200);

  // Findable in the Temporal UI by trigger, signal and content type (visibility is eventually consistent).
  const query = `TriggerIds = '${trigger.id}' AND SignalName = 'post_save' AND ContentType = 'shop.order'`;
  let found: string[] = [];
  for (let i = 0; i < 50 && found.length === 0; i++) {
    found = [];
    for await (const w of h.client.workflow.list({ query })) found.push(w.workflowId);
    if (found.length === 0) await new Promise((r) => setTimeout(r, 100));
  }
  expect(found).toEqual([signal.workflow_id]);
});

test("the SDK's workflow thread started through the bootstrap (no watchdog thread per call) and delivered the dispatch above; nothing is stuck", () => {
  expect(h.worker?.workflowThreadsWatched).toBe(1);
  expect(h.worker?.workflowStuckMs()).toBe(0);
});

test('a trigger for a content type whose parts hold dots (my.app / order.line) fires', async () => {
  const trigger = await createTrigger({
    content_types: [{ app_label: 'my.app', model_name: 'order.line' }],
    webhooks: [{ url: rx.url('/dotted'), http_method: 'POST' }],
  });
  const signal = await emit({ signal: 'post_save', app_label: 'My.App', model_name: 'order.line', instance: { id: 7 } });
  await rx.waitFor(() => rx.on('/dotted').length >= 1);
  expect(rx.on('/dotted')[0]!.headers['webhook-id']).toBe(`${signal.id}.${trigger.id}.w0`);
  expect((await statusOf(signal.id)).triggers).toEqual([{ trigger_id: trigger.id, version: 1 }]);
  const listed = await request(h.app).get('/api/action-triggers?app_label=my.app&model_name=order.line').expect(200);
  expect(listed.body.map((x: { id: string }) => x.id)).toEqual([trigger.id]);
});

test('an inactive trigger, another signal or another model sends nothing', async () => {
  const inactive = await createTrigger({
    active: false,
    model: 'cart',
    webhooks: [{ url: rx.url('/inactive'), http_method: 'POST' }],
  });
  await createTrigger({
    model: 'refund',
    config_signals: [{ signal: 'pre_delete' }],
    webhooks: [{ url: rx.url('/refund'), http_method: 'POST' }],
  });
  const signals = [
    await emit({ signal: 'post_save', app_label: 'shop', model_name: 'cart', instance: { id: 1 } }),
    await emit({ signal: 'post_save', app_label: 'shop', model_name: 'refund', instance: { id: 2 } }),
    await emit({ signal: 'pre_delete', app_label: 'shop', model_name: 'invoice', instance: { id: 3 } }),
  ];
  const [cart, refund, invoice] = await Promise.all(signals.map((s) => statusOf(s.id)));
  for (const s of [cart, refund, invoice]) expect(s).toMatchObject({ state: 'unmatched', actions: [] });
  // Each says why: the triggers that watch its content type and why they did not match, or none.
  expect(cart.not_matched).toEqual([{ trigger_id: inactive.id, version: 1, reason: 'inactive' }]);
  expect(refund.not_matched).toEqual([expect.objectContaining({ reason: 'another_signal', watches: ['pre_delete'] })]);
  expect(invoice).toMatchObject({ not_matched: [], reason: 'no trigger watches shop.invoice' });
  expect(rx.on('/inactive')).toHaveLength(0);
  expect(rx.on('/refund')).toHaveLength(0);
  expect(inactive.id).toBeDefined();
});

test('500, 500, then 200: delivered on the third attempt, and the status says 3 attempts', async () => {
  rx.script('/flaky', [{ status: 500 }, { status: 500 }]);
  await createTrigger({
    model: 'flaky',
    webhooks: [{ url: rx.url('/flaky'), http_method: 'POST' }],
  });
  const s = await emit({ signal: 'post_save', app_label: 'shop', model_name: 'flaky', instance: { id: 1 } });
  const status = await statusOf(s.id);
  expect(status.actions).toEqual([expect.objectContaining({ state: 'delivered', attempts: 3, status_code: 200 })]);
  expect(rx.on('/flaky')).toHaveLength(3);
  expect(new Set(rx.on('/flaky').map((r) => r.headers['webhook-id'])).size).toBe(1);
});

test('a receiver that hangs past timeout_secs is cut at that time and retried', async () => {
  rx.script('/slow', [{ delayMs: 5000 }]);
  await createTrigger({
    model: 'slow',
    webhooks: [{ url: rx.url('/slow'), http_method: 'POST', timeout_secs: 1 }],
  });
  const s = await emit({ signal: 'post_save', app_label: 'shop', model_name: 'slow', instance: { id: 1 } });
  const status = await statusOf(s.id);
  expect(status.actions).toEqual([expect.objectContaining({ state: 'delivered', attempts: 2 })]);
  const [first, second] = rx.on('/slow');
  // The second attempt started about 1 s (the time-out) plus a short backoff after the first, not 5 s.
  expect(second!.at - first!.at).toBeLessThan(4000);
  expect(second!.at - first!.at).toBeGreaterThanOrEqual(900);
});

test("404 is not retried and is recorded as failed; the trigger's other actions are delivered", async () => {
  rx.script('/gone', [{ status: 404 }]);
  await createTrigger({
    model: 'mixed',
    webhooks: [
      { url: rx.url('/gone'), http_method: 'POST' },
      { url: rx.url('/fine'), http_method: 'POST' },
    ],
  });
  const s = await emit({ signal: 'post_save', app_label: 'shop', model_name: 'mixed', instance: { id: 1 } });
  const status = await statusOf(s.id);
  expect(status.actions).toEqual([
    expect.objectContaining({ state: 'failed', attempts: 1, status_code: 404, last_error: 'HTTP 404' }),
    expect.objectContaining({ state: 'delivered', attempts: 1, status_code: 200 }),
  ]);
  expect(rx.on('/gone')).toHaveLength(1);
});

test('the same signal id emitted three times starts one dispatch', async () => {
  await createTrigger({
    model: 'once',
    webhooks: [{ url: rx.url('/once'), http_method: 'POST' }],
  });
  const body = { id: `order-77-saved-${Date.now()}`, signal: 'post_save', app_label: 'shop', model_name: 'once', instance: { id: 77 } };
  const first = await emit(body);
  await statusOf(first.id);
  const again = await Promise.all([emit(body), emit(body)]);
  expect(again.map((x) => [x.workflow_id, x.duplicate])).toEqual([
    [first.workflow_id, true],
    [first.workflow_id, true],
  ]);
  await new Promise((r) => setTimeout(r, 500));
  expect(rx.on('/once')).toHaveLength(1);
});

test('a signal with more actions than run locally sends its first attempts in one batch activity: a 500 retried to 200, a 404 failed, a queue message, the rest once', async () => {
  const paths = Array.from({ length: 12 }, (_, i) => `/bulk${i}`);
  rx.script('/bulk0', [{ status: 500 }]);
  rx.script('/bulk1', [{ status: 404 }]);
  await createTrigger({
    model: 'bulk',
    webhooks: paths.map((p) => ({ url: rx.url(p), http_method: 'POST' })),
    msg_broker_queues: [{ name: 'orders' }],
    payload: { id: '{{ instance.id }}' },
  });
  const s = await emit({ signal: 'post_save', app_label: 'shop', model_name: 'bulk', instance: { id: 5 } });
  const status = await statusOf(s.id);
  expect(status.actions).toHaveLength(13);
  expect(status.actions[0]).toMatchObject({ state: 'delivered', attempts: 2, status_code: 200 });
  expect(status.actions[1]).toMatchObject({ state: 'failed', attempts: 1, status_code: 404 });
  for (const a of status.actions.slice(2)) expect(a).toMatchObject({ state: 'delivered', attempts: 1 });
  expect(paths.map((p) => rx.on(p).length)).toEqual([2, 1, ...paths.slice(2).map(() => 1)]);
  expect(JSON.parse((await consumeOne(queue)).content.toString())).toEqual({ id: 5 });
  // One activity for the twelve first attempts and the queue's, one for bulk0's second attempt.
  const history = await h.client.workflow.getHandle(s.workflow_id).fetchHistory();
  const scheduled = (history.events ?? []).flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
  expect(scheduled).toEqual(['deliverFirstAttempts', 'deliverWebhook']);
});

test('two signals for one instance of a per_instance trigger: the second waits while the first is retried, then both arrive in acceptance order', async () => {
  rx.script('/in-order', [{ status: 500 }]);
  const t = await createTrigger({
    model: 'queued',
    webhooks: [{ url: rx.url('/in-order'), http_method: 'POST' }],
    payload: { n: '{{ instance.n }}' },
    ordering: 'per_instance',
  });
  const first = await emit({ signal: 'post_save', app_label: 'shop', model_name: 'queued', instance: { id: 9, n: 1 } });
  const second = (
    await request(h.app)
      .post('/api/signals')
      .send({ signal: 'post_save', app_label: 'shop', model_name: 'queued', instance: { id: 9, n: 2 } })
      .expect(202)
  ).body as { id: string; workflow_id: string };
  expect((await statusOf(first.id)).actions).toEqual([expect.objectContaining({ state: 'delivered', attempts: 2 })]);
  const later = await statusOf(second.id);
  expect(later.triggers).toEqual([expect.objectContaining({ instance_key: '9' })]);
  expect(later.actions).toEqual([expect.objectContaining({ state: 'delivered', attempts: 1 })]);
  expect(rx.on('/in-order').map((r) => (JSON.parse(r.body) as { n: number }).n)).toEqual([1, 1, 2]);
  // The first had its turn when queued; the second asked, waited, and was told by the first when its turn ended.
  const told = (await h.client.workflow.getHandle(second.workflow_id).fetchHistory()).events?.filter(
    (e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'turn',
  );
  expect(told).toHaveLength(1);
  expect((await h.store.read(`ordered-${t.id}-9`)).map((e) => e.type)).toEqual([
    'DispatchQueued',
    'DispatchQueued',
    'TurnEnded',
    'TurnEnded',
  ]);
  recorded.push({ name: 'a dispatch that waited for its turn in its instance order', workflowId: second.workflow_id });
});
