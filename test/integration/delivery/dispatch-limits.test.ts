import request from 'supertest';
import { Client, Connection } from '@temporalio/client';
import { configFrom, retrySettingsOf } from '../../../src/config';
import { createDispatchClient } from '../../../src/temporal/dispatch-client';
import {
  MAX_ACTIONS_PER_DISPATCH,
  MAX_QUEUES_PER_TRIGGER,
  MAX_SIGNAL_BYTES,
  MAX_TRIGGER_BYTES,
  MAX_WARNINGS_PER_ACTION,
  MAX_WEBHOOKS_PER_TRIGGER,
} from '../../../src/kernel/limits';
import { startDispatchHarness } from '../../support/dispatch-harness';
import { startReceiver, Receiver } from '../../support/receiver';
import { startTestApp } from '../../support/test-app';
import { freePort } from '../../support/free-port';
import { waitForDispatch } from '../../support/signals';
import { triggerBody } from '../../support/trigger-body';

/**
 * Everything that grows a dispatch's input, state or result is bounded: oversize triggers and signals are refused with a path, a signal matching more
 * actions than a dispatch may hold is refused whole, and render warnings cannot push a result
 * past Temporal's 2 MB limit.
 */
let h: Awaited<ReturnType<typeof startDispatchHarness>>;
let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
  h = await startDispatchHarness({ brokers: { orders: { broker_type: 'rabbitmq', params: { queue: 'limits' } } } });
});
afterAll(async () => {
  await h?.close();
  await rx?.close();
});

const trigger = (model: string, over: Record<string, unknown> = {}) => triggerBody({ app: 'limits', model, ...over });
const webhooks = (n: number, path = '/w') => Array.from({ length: n }, (_, i) => ({ url: rx.url(`${path}${i}`), http_method: 'POST' }));
const signal = (model: string, instance: Record<string, unknown> = { id: 1 }, id?: string) => ({
  ...(id ? { id } : {}),
  signal: 'post_save',
  app_label: 'limits',
  model_name: model,
  instance,
});

test(`a trigger with more than ${MAX_WEBHOOKS_PER_TRIGGER} webhooks or ${MAX_QUEUES_PER_TRIGGER} queues is refused; at the limit it is stored`, async () => {
  const res = await request(h.app)
    .post('/api/action-triggers')
    .send(
      trigger('many', {
        webhooks: webhooks(10_000),
        msg_broker_queues: Array.from({ length: MAX_QUEUES_PER_TRIGGER + 1 }, () => ({ name: 'orders' })),
      }),
    )
    .expect(400);
  expect(res.body.errors).toEqual([
    { path: 'webhooks', message: `must have at most ${MAX_WEBHOOKS_PER_TRIGGER} items` },
    { path: 'msg_broker_queues', message: `must have at most ${MAX_QUEUES_PER_TRIGGER} items` },
  ]);
  await request(h.app)
    .post('/api/action-triggers')
    .send(trigger('many', { webhooks: webhooks(MAX_WEBHOOKS_PER_TRIGGER) }))
    .expect(201);
});

test(`a trigger over ${MAX_TRIGGER_BYTES} bytes is refused, naming its largest field`, async () => {
  const payload = { text: 'x'.repeat(MAX_TRIGGER_BYTES) };
  const res = await request(h.app).post('/api/action-triggers').send(trigger('big', { payload })).expect(400);
  expect(res.body.errors).toEqual([
    { path: 'payload', message: expect.stringMatching(new RegExp(`bytes as JSON; at most ${MAX_TRIGGER_BYTES}$`)) },
  ]);
});

test('a batch with one oversize signal is refused whole: the valid one is not dispatched', async () => {
  await request(h.app)
    .post('/api/action-triggers')
    .send(trigger('batch', { webhooks: webhooks(1, '/batch') }))
    .expect(201);
  const valid = signal('batch', { id: 1 }, `valid-${Date.now()}`);
  const oversize = signal('batch', { blob: 'y'.repeat(MAX_SIGNAL_BYTES) });
  const res = await request(h.app).post('/api/signals').send([valid, oversize]).expect(400);
  expect(res.body.errors).toEqual([{ path: '[1].instance', message: expect.stringContaining(`at most ${MAX_SIGNAL_BYTES}`) }]);
  const bad = await request(h.app)
    .post('/api/signals')
    .send([valid, { ...valid, id: 'other', signal: 'post_saved' }])
    .expect(400);
  expect(bad.body.errors).toEqual([expect.objectContaining({ path: '[1].signal' })]);
  await new Promise((r) => setTimeout(r, 1000));
  await request(h.app).get(`/api/signals/${valid.id}`).expect(404);
  expect(rx.received.filter((r) => r.path.startsWith('/batch'))).toHaveLength(0);
  // The same batch without the bad item is accepted.
  await request(h.app).post('/api/signals').send([valid]).expect(202);
  await rx.waitFor(() => rx.received.some((r) => r.path === '/batch0'));
});

test(`a signal matching more than ${MAX_ACTIONS_PER_DISPATCH} actions is refused (422) and starts nothing`, async () => {
  const per = MAX_WEBHOOKS_PER_TRIGGER;
  const triggers = Math.floor(MAX_ACTIONS_PER_DISPATCH / per) + 1;
  for (let i = 0; i < triggers; i++) {
    await request(h.app)
      .post('/api/action-triggers')
      .send(trigger('crowded', { webhooks: webhooks(per, `/crowded${i}-`) }))
      .expect(201);
  }
  const s = signal('crowded', { id: 1 }, `crowded-${Date.now()}`);
  const res = await request(h.app).post('/api/signals').send(s).expect(422);
  expect(res.body.errors).toEqual([{ path: '(body)', message: expect.stringContaining(`matches ${triggers * per} actions`) }]);
  await request(h.app).get(`/api/signals/${s.id}`).expect(404);
});

test('thousands of missing attributes on 100 webhooks: the dispatch completes, each webhook sent once, warnings bounded', async () => {
  const payload: Record<string, string> = {};
  for (let i = 0; i < 6000; i++) payload[`k${i}`] = `{{ instance.missing_${i} }}`;
  await request(h.app)
    .post('/api/action-triggers')
    .send(trigger('warned', { webhooks: webhooks(MAX_WEBHOOKS_PER_TRIGGER, '/warned'), payload }))
    .expect(201);
  const accepted = (await request(h.app).post('/api/signals').send(signal('warned')).expect(202)).body as { id: string };
  const status = await waitForDispatch(h.app, accepted.id, (s) => s.state === 'completed', 90_000);
  expect(status.actions).toHaveLength(MAX_WEBHOOKS_PER_TRIGGER);
  for (const a of status.actions as Array<{ state: string; warnings: string[] }>) {
    expect(a.state).toBe('delivered');
    expect(a.warnings).toHaveLength(MAX_WARNINGS_PER_ACTION + 1);
    expect(a.warnings[MAX_WARNINGS_PER_ACTION]).toBe(`… and ${6000 - MAX_WARNINGS_PER_ACTION} more`);
  }
  const sent = rx.received.filter((r) => r.path.startsWith('/warned'));
  expect(sent).toHaveLength(MAX_WEBHOOKS_PER_TRIGGER);
  expect(new Set(sent.map((r) => r.headers['webhook-id'])).size).toBe(MAX_WEBHOOKS_PER_TRIGGER);
}, 120_000);

test('Temporal unreachable: a batch is still accepted whole (stored, queued), and /readyz stays ready and says so', async () => {
  // A real client to a port where nothing listens.
  const connection = Connection.lazy({ address: `127.0.0.1:${await freePort()}`, connectTimeout: 500 });
  const dispatch = createDispatchClient(new Client({ connection }), 'none', retrySettingsOf(configFrom({})));
  const t = await startTestApp({ allow_private_targets: true }, undefined, { dispatch });
  try {
    await request(t.app)
      .post('/api/action-triggers')
      .send(trigger('down', { webhooks: webhooks(1, '/down') }))
      .expect(201);
    const res = await request(t.app)
      .post('/api/signals')
      .send([signal('down', { id: 1 }, 'down-1'), signal('x', { id: 2 }, 'down-2')])
      .expect(202);
    expect(res.body).toEqual([
      { id: 'down-1', workflow_id: 'signal-down-1', duplicate: false, state: 'queued' },
      { id: 'down-2', workflow_id: 'signal-down-2', duplicate: false, state: 'unmatched' },
    ]);
    expect((await request(t.app).get('/api/signals/down-1').expect(200)).body).toMatchObject({ state: 'queued' });
    // Learning that Temporal is away takes its 2 s deadline: /readyz answers meanwhile with what it knows.
    let ready = await request(t.app).get('/readyz').expect(200);
    for (let i = 0; i < 100 && ready.body.dispatch.temporal !== 'unreachable'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      ready = await request(t.app).get('/readyz').expect(200);
    }
    expect(ready.body).toMatchObject({ status: 'ready', dispatch: { temporal: 'unreachable', backlog: 2 } });
  } finally {
    await t.close();
    await connection.close();
  }
}, 60_000);
