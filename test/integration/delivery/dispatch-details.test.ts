import { join } from 'node:path';
import request from 'supertest';
import { WorkflowFailedError } from '@temporalio/client';
import { retrySettingsOf } from '../../../src/config';
import { createLogger } from '../../../src/kernel/logger';
import { startDispatchHarness, sdkLogLines, TEST_RETRY } from '../../support/dispatch-harness';
import { historyText } from '../../support/histories';
import { startReceiver, Receiver } from '../../support/receiver';
import { waitForDispatch } from '../../support/signals';
import { postTrigger, triggerBody } from '../../support/trigger-body';

const SECRET_TOKEN = `s3cr3t-${Math.random().toString(36).slice(2)}`;
const ENV_TOKEN = `envtok-${Math.random().toString(36).slice(2)}`;
const logLines: string[] = [];

let h: Awaited<ReturnType<typeof startDispatchHarness>>;
let rx: Receiver;
beforeAll(async () => {
  process.env.AT_TEST_SECRET_TOKEN = SECRET_TOKEN; // read by the host's dynamic-value module at delivery time
  rx = await startReceiver();
  h = await startDispatchHarness(
    {
      dynamic_values: {
        module: join(__dirname, '../../fixtures/dynamic-values.js'),
        allowed_paths: ['secrets.token', 'env.AT_TEST_ENV_TOKEN'],
      },
    },
    {
      env: { ...process.env, AT_TEST_SECRET_TOKEN: SECRET_TOKEN, AT_TEST_ENV_TOKEN: ENV_TOKEN },
      log: createLogger('debug', (l) => logLines.push(l)),
    },
  );
});
afterAll(async () => {
  await h?.close();
  await rx?.close();
});

const trigger = (model: string, over: Record<string, unknown>) => postTrigger(h.app, triggerBody({ model, ...over }));
const emit = async (model: string, instance: Record<string, unknown> = { id: 1 }) =>
  (await request(h.app).post('/api/signals').send({ signal: 'post_save', app_label: 'shop', model_name: model, instance }).expect(202))
    .body as { id: string; workflow_id: string };

test('a secret from a dynamic value reaches the receiver, and never the history, the logs or an API response', async () => {
  rx.script('/secret', [{ status: 500 }]);
  const t = await trigger('secret', {
    webhooks: [
      {
        url: rx.url('/secret'),
        http_method: 'POST',
        headers: { Authorization: 'Bearer {{ secrets.token }}', 'X-Env': '{{ env.AT_TEST_ENV_TOKEN }}' },
      },
    ],
    payload: { token_echo: 'sig {{ secrets.token }}' },
  });
  const s = await emit('secret');
  const status = await waitForDispatch(h.app, s.id);
  expect(status.actions[0]).toMatchObject({ state: 'delivered', attempts: 2 });
  const delivered = rx.on('/secret');
  expect(delivered[1]!.headers.authorization).toBe(`Bearer ${SECRET_TOKEN}`);
  expect(delivered[1]!.headers['x-env']).toBe(ENV_TOKEN);
  expect(JSON.parse(delivered[1]!.body)).toEqual({ token_echo: `sig ${SECRET_TOKEN}` });

  const history = historyText(await h.client.workflow.getHandle(s.workflow_id).fetchHistory());
  const responses = [
    JSON.stringify(status),
    (await request(h.app).get(`/api/action-triggers/${t.id}`)).text,
    (await request(h.app).get(`/api/action-triggers/${t.id}/history`)).text,
    (await request(h.app).get('/api/action-triggers')).text,
  ];
  expect(history).toContain('deliverWebhook');
  expect(history).toContain('"model_name":"secret"'); // payloads are decoded, so a leak there would show
  expect(logLines.join('\n')).toContain(s.id);
  for (const [where, text] of [
    ['history', history],
    ['logs', logLines.join('\n')],
    ['sdk logs', sdkLogLines.join('\n')],
    ...responses.map((r) => ['response', r]),
  ]) {
    expect({ where, leaked: text!.includes(SECRET_TOKEN) || text!.includes(ENV_TOKEN) }).toEqual({ where, leaked: false });
  }
});

test('without a payload the body is the envelope; GET carries no body; a string payload is text/plain', async () => {
  const t = await trigger('bodies', {
    webhooks: [
      { url: rx.url('/envelope'), http_method: 'POST' },
      { url: rx.url('/get'), http_method: 'GET' },
    ],
  });
  const s = await emit('bodies', { id: 5, name: 'five' });
  await waitForDispatch(h.app, s.id);
  expect(JSON.parse(rx.on('/envelope')[0]!.body)).toEqual({
    signal: 'post_save',
    app_label: 'shop',
    model_name: 'bodies',
    instance: { id: 5, name: 'five' },
    signal_id: s.id,
    trigger_id: t.id,
    occurred_at: expect.any(String),
  });
  expect(rx.on('/get')[0]!.body).toBe('');
  await trigger('text', {
    webhooks: [{ url: rx.url('/text'), http_method: 'POST' }],
    payload: 'Order {{ instance.id }} by {{ instance.who.name }}',
  });
  const s2 = await emit('text', { id: 9 });
  const status = await waitForDispatch(h.app, s2.id);
  expect(rx.on('/text')[0]!.body).toBe('Order 9 by ');
  expect(rx.on('/text')[0]!.headers['content-type']).toBe('text/plain; charset=utf-8');
  expect(status.actions[0].warnings).toEqual(['instance.who.name is missing']);
});

test('a missing attribute in a header is a warning of the action, like one in the body', async () => {
  await trigger('header-warn', {
    webhooks: [{ url: rx.url('/header-warn'), http_method: 'POST', headers: { 'X-Ref': 'ref-{{ instance.ref }}' } }],
    payload: { id: '{{ instance.id }}', who: '{{ instance.who }}' },
  });
  const s = await emit('header-warn', { id: 3 });
  const status = await waitForDispatch(h.app, s.id);
  expect(rx.on('/header-warn')[0]!.headers['x-ref']).toBe('ref-');
  expect(status.actions[0].warnings).toEqual(['instance.who is missing', 'instance.ref is missing']);
});

test('Retry-After is honoured', async () => {
  // 1 s: the test schedule's max_interval_secs (a longer one is held to it); its backoff would wait 0.2 s at most.
  rx.script('/busy', [{ status: 429, headers: { 'Retry-After': '1' } }]);
  await trigger('busy', { webhooks: [{ url: rx.url('/busy'), http_method: 'POST' }] });
  const s = await emit('busy');
  await waitForDispatch(h.app, s.id);
  const [first, second] = rx.on('/busy');
  expect(second!.at - first!.at).toBeGreaterThanOrEqual(950);
});

test('while an action retries, its status says retrying, with attempts so far and the last error', async () => {
  rx.script('/down', [
    { status: 503, headers: { 'Retry-After': '1' } },
    { status: 503, headers: { 'Retry-After': '1' } },
  ]);
  await trigger('down', { webhooks: [{ url: rx.url('/down'), http_method: 'POST' }] });
  const s = await emit('down');
  // Attempt 1 ran locally in the worker; attempt 2 is a regular activity waiting out Retry-After.
  const retrying = await waitForDispatch(h.app, s.id, (v) => (v as { actions?: Array<{ attempts: number }> }).actions?.[0]?.attempts === 2);
  expect(retrying.state).toBe('running');
  expect(retrying.actions[0]).toMatchObject({ state: 'retrying', attempts: 2, last_error: 'HTTP 503' });
  const done = await waitForDispatch(h.app, s.id);
  expect(done.actions[0]).toMatchObject({ state: 'delivered', attempts: 3, status_code: 200 });
  expect(rx.on('/down')).toHaveLength(3);
});

test('a receiver that always fails: every attempt of the retry policy runs, then the action is failed with the last status', async () => {
  rx.script(
    '/broken',
    Array.from({ length: 10 }, () => ({ status: 502 })),
  );
  await trigger('broken', { webhooks: [{ url: rx.url('/broken'), http_method: 'POST' }] });
  const s = await emit('broken');
  const done = await waitForDispatch(h.app, s.id);
  expect(done.actions[0]).toMatchObject({ state: 'failed', attempts: TEST_RETRY.max_attempts, status_code: 502, last_error: 'HTTP 502' });
  expect(rx.on('/broken')).toHaveLength(TEST_RETRY.max_attempts);
});

test('a signal matching 60 triggers: every one delivers, and the dispatch is findable by the trigger ids that fit', async () => {
  const ids: string[] = [];
  for (let i = 0; i < 60; i++)
    ids.push((await trigger('crowded', { webhooks: [{ url: rx.url(`/crowded/${i}`), http_method: 'POST' }] })).id);
  const s = await emit('crowded');
  const done = await waitForDispatch(h.app, s.id);
  expect(done.triggers).toHaveLength(60);
  expect(done.actions.filter((a: { state: string }) => a.state === 'delivered')).toHaveLength(60);
  for (let i = 0; i < 60; i++) expect(rx.on(`/crowded/${i}`)).toHaveLength(1);
  // 60 ids exceed Temporal's 2 KB search attribute limit: the first 51 are searchable.
  const searchable = async (id: string) => {
    const found: string[] = [];
    for await (const w of h.client.workflow.list({ query: `TriggerIds = '${id}'` })) found.push(w.workflowId);
    return found;
  };
  const sorted = [...ids].sort(); // matching returns triggers in id order
  let first: string[] = [];
  for (let i = 0; i < 50 && first.length === 0; i++) {
    first = await searchable(sorted[0]!);
    if (first.length === 0) await new Promise((r) => setTimeout(r, 100));
  }
  expect(first).toEqual([s.workflow_id]);
  expect(await searchable(sorted[59]!)).toEqual([]);
});

test('a dispatch started without a plan (a retired shape) fails at once, saying why, and sends nothing', async () => {
  await trigger('legacy', { webhooks: [{ url: rx.url('/legacy'), http_method: 'POST' }] });
  const id = `legacy-${Date.now()}`;
  const signal = {
    id,
    signal: 'post_save',
    app_label: 'shop',
    model_name: 'legacy',
    instance: { id: 1 },
    occurred_at: new Date().toISOString(),
  };
  const started = await h.client.workflow.start('dispatchSignal', {
    taskQueue: h.taskQueue,
    workflowId: `signal-${id}`,
    args: [{ signal, retry: retrySettingsOf(h.config) }],
  });
  const failure = await started.result().then(
    () => undefined,
    (e: WorkflowFailedError) => e.cause,
  );
  expect(failure).toMatchObject({ type: 'RetiredShape', nonRetryable: true });
  expect(failure?.message).toContain('workflow shape is retired');
  expect(rx.on('/legacy')).toHaveLength(0);
});

test('signal bodies are validated with field paths; an array gets an array back; unknown ids are 404', async () => {
  const bad = await request(h.app)
    .post('/api/signals')
    .send({ signal: 'saved', app_label: '', instance: [1], id: 'has space', extra: 1 })
    .expect(400);
  expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
    'app_label',
    'extra',
    'id',
    'instance',
    'model_name',
    'signal',
  ]);
  const many = await request(h.app)
    .post('/api/signals')
    .send([
      { signal: 'post_save', app_label: 'shop', model_name: 'none', instance: {} },
      { signal: 'post_delete', app_label: 'shop', model_name: 'none', instance: {}, id: 'fixed-id-1' },
    ])
    .expect(202);
  expect(many.body).toHaveLength(2);
  expect(many.body[1]).toMatchObject({ id: 'fixed-id-1', workflow_id: 'signal-fixed-id-1' });
  // Longer than Django allows (100): a 400 naming the field, not a start that Temporal refuses.
  const long = await request(h.app)
    .post('/api/signals')
    .send({ signal: 'post_save', app_label: 'a'.repeat(101), model_name: 'm', instance: {} })
    .expect(400);
  expect(long.body.errors).toEqual([{ path: 'app_label', message: 'must be at most 100 characters' }]);
  const inArray = await request(h.app)
    .post('/api/signals')
    .send([{ signal: 'post_save' }])
    .expect(400);
  expect(inArray.body.errors[0].path).toMatch(/^\[0\]\./);
  await request(h.app).post('/api/signals').send([]).expect(400);
  await request(h.app).get('/api/signals/never-emitted').expect(404);
});
