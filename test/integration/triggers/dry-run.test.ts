import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { connect } from 'amqplib';
import request from 'supertest';
import { signatureOf } from '../../../src/destinations/webhook/signing';
import { TARGET_REFUSED } from '../../../src/destinations/port/target-guard';
import { MAX_DRY_RUN_BODY_CHARS, MAX_RENDERED_CHARS } from '../../../src/kernel/limits';
import { startDispatchHarness } from '../../support/dispatch-harness';
import { startReceiver, Receiver } from '../../support/receiver';
import { testServers } from '../../support/servers';
import { storeTrigger } from '../../support/store-trigger';
import { aTrigger, startTestApp } from '../../support/test-app';
import { postTrigger, triggerBody } from '../../support/trigger-body';

const SECRET = 'whsec_' + Buffer.from('dry-run-signing-key-0123456789').toString('base64');
const TOKEN = 'tok-dry-7c41e9'; // resolved from env by the worker only

let h: Awaited<ReturnType<typeof startDispatchHarness>>;
let rx: Receiver;
let queue: string;

beforeAll(async () => {
  rx = await startReceiver();
  queue = `dry-run-${Date.now()}`;
  h = await startDispatchHarness(
    {
      brokers: { orders: { broker_type: 'rabbitmq', conn_details: { url: testServers().rabbit.url }, params: { queue } } },
      dynamic_values: { allowed_paths: ['env.AT_TEST_DRY_TOKEN'] },
      signing_secret: SECRET,
    },
    { env: { ...process.env, AT_TEST_DRY_TOKEN: TOKEN } },
  );
});
afterAll(async () => {
  await h?.close();
  await rx?.close();
});

type DryRun = {
  trigger_id: string;
  version: number | null;
  would_dispatch: boolean;
  varies_per_attempt: string[];
  signal: Record<string, unknown>;
  actions: Array<{
    kind: string;
    delivery_id: string;
    warnings: string[];
    masked_headers?: string[];
    refused?: string;
    error_type?: string;
    retried?: boolean;
    request?: { method: string; url: string; headers: Record<string, string>; body: string | null; content_type: string };
    message?: {
      broker: string;
      broker_type: string;
      conn_details: Record<string, string>;
      parameters: Record<string, string>;
      body: string | null;
      content_type: string;
      delivery_id: string;
    };
  }>;
};

const createTrigger = (over: Record<string, unknown>) => postTrigger(h.app, triggerBody(over));

/** Everything in the queue right now (nothing waits for more). */
const drain = async (q: string) => {
  const conn = await connect(testServers().rabbit.url);
  const ch = await conn.createChannel();
  await ch.assertQueue(q, { durable: true });
  const out = [];
  try {
    for (let m = await ch.get(q, { noAck: true }); m; m = await ch.get(q, { noAck: true })) out.push(m);
  } finally {
    await conn.close();
  }
  return out;
};

const waitForMessage = async (q: string) => {
  for (const deadline = Date.now() + 15_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
    const [m] = await drain(q);
    if (m) return m;
  }
  throw new Error(`no message on ${q}`);
};

test('the dry run shows the exact request and message a dispatch of the same signal then sends, sends nothing itself, and never a resolved value', async () => {
  const trigger = await createTrigger({
    webhooks: [
      {
        url: rx.url('/dry'),
        http_method: 'POST',
        headers: { Authorization: 'Bearer {{ env.AT_TEST_DRY_TOKEN }}', 'X-Order': 'n-{{ instance.number }}' },
      },
    ],
    msg_broker_queues: [{ name: 'orders' }],
    payload: { order: '{{ instance.id }}', lines: '{{ instance.lines }}', note: 'order {{ instance.number }} saved' },
  });
  const signal = {
    id: `dry-${randomUUID()}`,
    occurred_at: '2026-11-22T10:00:00.123Z',
    signal: 'post_save',
    instance: { id: 42, number: 'A-7', lines: [{ sku: 'x', qty: 2 }], ünïcode: '✓' },
  };
  const dry = (await request(h.app).post(`/api/action-triggers/${trigger.id}/test`).send(signal).expect(200)).body as DryRun;

  expect(dry).toMatchObject({
    trigger_id: trigger.id,
    version: 1,
    would_dispatch: true,
    varies_per_attempt: ['webhook-timestamp', 'webhook-signature'],
    signal: { id: signal.id, signal: 'post_save', app_label: 'shop', model_name: 'order', occurred_at: signal.occurred_at },
  });
  const [hook, msg] = dry.actions;
  const body = '{"order":42,"lines":[{"sku":"x","qty":2}],"note":"order A-7 saved"}';
  expect(hook).toMatchObject({
    kind: 'webhook',
    delivery_id: `${signal.id}.${trigger.id}.w0`,
    masked_headers: ['authorization'],
    warnings: [],
    request: { method: 'POST', url: rx.url('/dry'), body, content_type: 'application/json' },
  });
  expect(hook!.refused).toBeUndefined();
  expect(hook!.request!.headers).toMatchObject({
    authorization: 'Bearer {{ env.AT_TEST_DRY_TOKEN }}',
    'x-order': 'n-A-7',
    'webhook-id': `${signal.id}.${trigger.id}.w0`,
    'webhook-signature': '(computed at send time)',
    'content-type': 'application/json',
  });
  expect(msg).toMatchObject({
    kind: 'broker',
    delivery_id: `${signal.id}.${trigger.id}.q0`,
    warnings: [],
    message: {
      broker: 'orders',
      broker_type: 'rabbitmq',
      parameters: { queue },
      conn_details: { url: '(secret, not shown)' },
      body,
      content_type: 'application/json',
      delivery_id: `${signal.id}.${trigger.id}.q0`,
    },
  });
  const text = JSON.stringify(dry);
  expect(text).not.toContain(TOKEN);
  expect(text).not.toContain(testServers().rabbit.url);
  // Sent nothing: no request, no message.
  await new Promise((r) => setTimeout(r, 300));
  expect(rx.on('/dry')).toHaveLength(0);
  expect(await drain(queue)).toHaveLength(0);

  // The same signal for real: the same bytes, the same non-secret headers.
  await request(h.app)
    .post('/api/signals')
    .send({ ...signal, app_label: 'shop', model_name: 'order' })
    .expect(202);
  await rx.waitFor(() => rx.on('/dry').length >= 1);
  const got = rx.on('/dry')[0]!;
  expect(got.method).toBe(hook!.request!.method);
  expect(got.body).toBe(hook!.request!.body);
  const fixed = Object.entries(hook!.request!.headers).filter(
    ([k]) => !hook!.masked_headers!.includes(k) && !dry.varies_per_attempt.includes(k),
  );
  expect(fixed.map(([k]) => k).sort()).toEqual(['content-type', 'user-agent', 'webhook-id', 'x-order']);
  for (const [k, v] of fixed) expect([k, got.headers[k]]).toEqual([k, v]);
  expect(got.headers.authorization).toBe(`Bearer ${TOKEN}`);
  const ts = Number(got.headers['webhook-timestamp']);
  expect(got.headers['webhook-signature']).toBe(signatureOf(SECRET, hook!.request!.headers['webhook-id']!, ts, hook!.request!.body!));
  const sent = await waitForMessage(queue);
  expect(sent.content.toString('utf8')).toBe(msg!.message!.body);
  expect([sent.properties.messageId, sent.properties.contentType]).toEqual([msg!.message!.delivery_id, msg!.message!.content_type]);
});

test('without a payload the envelope is shown byte for byte, with the given id and time; an inactive trigger says it would not dispatch', async () => {
  const trigger = await createTrigger({
    content_types: [
      { app_label: 'shop', model_name: 'invoice' },
      { app_label: 'shop', model_name: 'refund' },
    ],
    webhooks: [{ url: rx.url('/envelope'), http_method: 'PUT' }],
  });
  const signal = {
    id: `env-${randomUUID()}`,
    occurred_at: '2026-11-22T10:00:00Z',
    signal: 'post_save',
    model_name: 'refund',
    instance: { id: 9 },
  };
  const dry = (await request(h.app).post(`/api/action-triggers/${trigger.id}/test`).send(signal).expect(200)).body as DryRun;
  expect(dry.signal).toMatchObject({ app_label: 'shop', model_name: 'refund' });
  await request(h.app)
    .post('/api/signals')
    .send({ ...signal, app_label: 'shop' })
    .expect(202);
  await rx.waitFor(() => rx.on('/envelope').length >= 1);
  expect(rx.on('/envelope')[0]!.body).toBe(dry.actions[0]!.request!.body);
  expect(JSON.parse(dry.actions[0]!.request!.body!)).toMatchObject({ signal_id: signal.id, trigger_id: trigger.id, model_name: 'refund' });

  await request(h.app).patch(`/api/action-triggers/${trigger.id}`).send({ active: false }).expect(200);
  const inactive = (await request(h.app).post(`/api/action-triggers/${trigger.id}/test`).send(signal).expect(200)).body as DryRun;
  expect([inactive.version, inactive.would_dispatch, inactive.actions.length]).toEqual([2, false, 1]);
});

test('missing attributes are warnings; a rendering too large, a header a value breaks and a path off the allow-list are refusals; nothing 5xx', async () => {
  const trigger = await createTrigger({
    webhooks: [
      { url: rx.url('/warn'), http_method: 'POST', headers: { 'X-Gone': '{{ instance.gone }}' } },
      { url: rx.url('/crlf'), http_method: 'POST', headers: { 'X-Note': '{{ instance.note }}' } },
    ],
    payload: { a: '{{ instance.missing }}', big: Array(25).fill('{{ instance.big }}') },
  });
  const url = `/api/action-triggers/${trigger.id}/test`;
  const small = (
    await request(h.app)
      .post(url)
      .send({ signal: 'post_save', instance: { note: 'ok' } })
      .expect(200)
  ).body as DryRun;
  expect(small.actions[0]!.warnings).toEqual(expect.arrayContaining(['instance.missing is missing', 'instance.gone is missing']));
  const crlf = (
    await request(h.app)
      .post(url)
      .send({ signal: 'post_save', instance: { note: 'a\r\nX-Evil: 1' } })
      .expect(200)
  ).body as DryRun;
  expect(crlf.actions[1]).toMatchObject({ error_type: 'WebhookHeader', retried: false });
  expect(crlf.actions[1]!.request).toBeUndefined();
  const big = 'x'.repeat(Math.ceil(MAX_RENDERED_CHARS / 24));
  const large = (await request(h.app).post(url).send({ signal: 'post_save', instance: { big } }).expect(200)).body as DryRun;
  for (const a of large.actions)
    expect([a.error_type, a.retried, a.refused]).toEqual(['RenderTooLarge', false, expect.stringContaining(`${MAX_RENDERED_CHARS}`)]);
  // A trigger stored before the allow-list changed: the worker would refuse the path, so does the dry run.
  const stale = await storeTrigger(
    h,
    triggerBody({ webhooks: [{ url: rx.url('/stale'), http_method: 'POST', headers: { 'X-Key': '{{ env.NOT_ALLOWED }}' } }] }),
  );
  const off = (await request(h.app).post(`/api/action-triggers/${stale}/test`).send({ signal: 'post_save', instance: {} }).expect(200))
    .body as DryRun;
  expect(off.actions[0]).toMatchObject({
    error_type: 'DynamicValue',
    retried: true,
    refused: 'dynamic value {{ env.NOT_ALLOWED }} is not on dynamic_values.allowed_paths',
  });
  // Hostile bodies are refused with a path, never a 5xx.
  const proto = await request(h.app)
    .post(url)
    .set('content-type', 'application/json')
    .send('{"signal":"post_save","instance":{"__proto__":{"x":1}}}');
  expect(proto.status).toBe(400);
  let deep: unknown = {};
  for (let i = 0; i < 40; i++) deep = { d: deep };
  expect((await request(h.app).post(url).send({ signal: 'post_save', instance: deep })).status).toBe(400);
  const huge = await request(h.app)
    .post(url)
    .send({ signal: 'post_save', instance: { s: 'y'.repeat(300 * 1024) } });
  expect([huge.status, huge.body.errors]).toEqual([400, [{ path: 'instance', message: expect.stringContaining('at most 262144') }]]);
  expect(rx.received.filter((r) => ['/warn', '/crlf', '/stale'].includes(r.path))).toHaveLength(0);
});

test("bodies past the dry run's bound are left out, and say so; the rest are whole", async () => {
  const s = 'z'.repeat(250_000);
  const trigger = await createTrigger({
    payload: Array(15).fill('{{ instance.s }}'),
    webhooks: [1, 2, 3].map((i) => ({ url: rx.url(`/bound-${i}`), http_method: 'POST' })),
  });
  const dry = (
    await request(h.app).post(`/api/action-triggers/${trigger.id}/test`).send({ signal: 'post_save', instance: { s } }).expect(200)
  ).body as DryRun;
  const whole = JSON.stringify(Array(15).fill(s));
  expect(dry.actions.map((a) => a.request!.body === whole)).toEqual([true, true, false]);
  expect(dry.actions[2]).toMatchObject({
    request: { body: null },
    body_omitted: `${whole.length} characters, left out: a dry run shows at most ${MAX_DRY_RUN_BODY_CHARS} characters of bodies`,
  });
});

test('the request body is checked with paths; a signal or content type the trigger does not watch is shown, saying it would not dispatch; unknown and deleted triggers are 404', async () => {
  const trigger = await createTrigger({ webhooks: [{ url: rx.url('/checked'), http_method: 'POST' }] });
  const url = `/api/action-triggers/${trigger.id}/test`;
  const bad = await request(h.app).post(url).send({ signal: 'pre_delete', instance: [], extra: 1 }).expect(400);
  expect(bad.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['extra', 'instance']);
  const other = await request(h.app).post(url).send({ signal: 'pre_delete', instance: {} }).expect(200);
  expect([other.body.would_dispatch, other.body.not_dispatched_reason]).toEqual([
    false,
    'the trigger does not watch pre_delete (it watches post_save)',
  ]);
  const cart = await request(h.app)
    .post(url)
    .send({ signal: 'post_save', instance: {}, app_label: 'Shop', model_name: 'cart' })
    .expect(200);
  expect([cart.body.would_dispatch, cart.body.not_dispatched_reason]).toEqual([
    false,
    'the trigger does not watch Shop.cart (it watches shop.order)',
  ]);
  const sameType = await request(h.app)
    .post(url)
    .send({ signal: 'post_save', instance: {}, app_label: ' SHOP', model_name: 'Order' })
    .expect(200);
  expect([sameType.body.would_dispatch, sameType.body.actions.length]).toEqual([true, 1]);
  await request(h.app).post(`/api/action-triggers/${randomUUID()}/test`).send({ signal: 'post_save', instance: {} }).expect(404);
  await request(h.app).post('/api/action-triggers/not-a-uuid/test').send({ signal: 'post_save', instance: {} }).expect(404);
  await request(h.app).delete(`/api/action-triggers/${trigger.id}`).expect(204);
  const gone = await request(h.app).post(url).send({ signal: 'post_save', instance: {} }).expect(404);
  expect(gone.headers['content-type']).toMatch(/^application\/problem\+json/);
});

test('a trigger body is checked as on create (errors under trigger.…), shown when valid, and never stored', async () => {
  const before = [await h.store.headPosition(), await h.store.headPosition('signal')];
  const listed = (await request(h.app).get('/api/action-triggers').expect(200)).body as unknown[];
  const bad = await request(h.app)
    .post('/api/action-triggers/test')
    .send({
      trigger: {
        config_signals: [],
        content_types: [{ app_label: 'shop', model_name: 'order' }],
        webhooks: [{ url: 'ftp://x', http_method: 'POST' }],
      },
      signal: 'post_save',
      instance: 'nope',
    })
    .expect(400);
  expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
    'instance',
    'trigger.active',
    'trigger.config_signals',
    'trigger.webhooks[0].url',
  ]);
  expect(
    (await request(h.app).post('/api/action-triggers/test').send({ signal: 'post_save', instance: {} }).expect(400)).body.errors,
  ).toEqual([{ path: 'trigger', message: 'is required' }]);
  const ok = (
    await request(h.app)
      .post('/api/action-triggers/test')
      .send({
        trigger: aTrigger({ webhooks: [{ url: rx.url('/unstored'), http_method: 'POST' }], msg_broker_queues: [{ name: 'orders' }] }),
        signal: 'post_save',
        instance: { id: 5, number: 'B-1' },
      })
      .expect(200)
  ).body as DryRun;
  expect(ok).toMatchObject({ trigger_id: '00000000-0000-0000-0000-000000000000', version: null, signal: { id: 'dry-run' } });
  expect(ok.actions.map((a) => [a.kind, a.delivery_id])).toEqual([
    ['webhook', 'dry-run.00000000-0000-0000-0000-000000000000.w0'],
    ['broker', 'dry-run.00000000-0000-0000-0000-000000000000.q0'],
  ]);
  expect(ok.actions[0]!.request!.body).toBe('{"order":5,"note":"order B-1 saved"}');
  expect([await h.store.headPosition(), await h.store.headPosition('signal')]).toEqual(before);
  expect((await request(h.app).get('/api/action-triggers').expect(200)).body).toEqual(listed);
  expect(rx.on('/unstored')).toHaveLength(0);
  expect(await drain(queue)).toHaveLength(0);
});

describe('with allow_private_targets off', () => {
  let t: Awaited<ReturnType<typeof startTestApp>>;
  beforeAll(async () => {
    t = await startTestApp({ allow_private_targets: false, webhook_url_patterns: ['https://hooks\\.example\\.com/', 'http://'] });
  });
  afterAll(async () => {
    await t.close();
  });

  test('each target the SSRF guard would refuse says so (literal addresses, localhost, a DNS name answering loopback), and nothing is sent', async () => {
    const port = new URL(rx.url('/')).port;
    const refused = [
      `http://127.0.0.1:${port}/v4`,
      `http://[::1]:${port}/v6`,
      `http://10.1.2.3:${port}/private`,
      `http://[::ffff:7f00:1]:${port}/mapped`,
      `http://localhost:${port}/name`,
      `http://${hostname()}:${port}/dns`,
    ];
    const id = await storeTrigger(
      t,
      triggerBody({ webhooks: [...refused, 'https://93.184.215.14/public'].map((url) => ({ url, http_method: 'POST' })) }),
    );
    const dry = (await request(t.app).post(`/api/action-triggers/${id}/test`).send({ signal: 'post_save', instance: {} }).expect(200))
      .body as DryRun;
    expect(dry.actions.map((a) => [a.request!.url, a.refused, a.error_type])).toEqual([
      ...refused.map((url) => [url, TARGET_REFUSED, 'TargetRefused']),
      ['https://93.184.215.14/public', undefined, undefined],
    ]);
    // The public one passes the guard, but not today's allow-list: a warning (a dispatch still sends to it).
    expect(dry.actions[refused.length]!.warnings).toEqual([expect.stringContaining('is not allowed by webhook_url_patterns')]);
    expect(rx.received.filter((r) => ['/v4', '/v6', '/private', '/mapped', '/name', '/dns'].includes(r.path))).toHaveLength(0);
    // A trigger body with such a target is refused as on create.
    const body = await request(t.app)
      .post('/api/action-triggers/test')
      .send({
        trigger: aTrigger({ webhooks: [{ url: refused[0], http_method: 'POST' }], msg_broker_queues: [] }),
        signal: 'post_save',
        instance: {},
      })
      .expect(400);
    expect(body.body.errors.map((e: { path: string }) => e.path)).toEqual(['trigger.webhooks[0].url']);
  });
});

test('without triggers:write a dry run is 403 when API keys are configured', async () => {
  const t = await startTestApp({
    api_keys: [
      { id: 'reader', key: 'reader-secret', scopes: ['triggers:read'] },
      { id: 'ops', key: 'ops-secret', scopes: ['triggers:write'] },
    ],
  });
  try {
    const id = await storeTrigger(t, aTrigger({ msg_broker_queues: [], webhooks: [] }));
    const dry = { signal: 'post_save', instance: {} };
    await request(t.app).post(`/api/action-triggers/${id}/test`).set('Authorization', 'Bearer reader-secret').send(dry).expect(403);
    await request(t.app)
      .post('/api/action-triggers/test')
      .set('Authorization', 'Bearer reader-secret')
      .send({ ...dry, trigger: aTrigger() })
      .expect(403);
    await request(t.app).post(`/api/action-triggers/${id}/test`).send(dry).expect(401);
    await request(t.app).post(`/api/action-triggers/${id}/test`).set('Authorization', 'Bearer ops-secret').send(dry).expect(200);
  } finally {
    await t.close();
  }
});
