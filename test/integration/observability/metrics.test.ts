import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { createMetrics } from '../../../src/observability/metrics';
import { startDispatchHarness } from '../../support/dispatch-harness';
import { parsePrometheusText, Sample, valueOf } from '../../support/prom-text';
import { startReceiver, Receiver } from '../../support/receiver';
import { testServers } from '../../support/servers';
import { waitForDispatch } from '../../support/signals';
import { postTrigger, triggerBody } from '../../support/trigger-body';

const N = 3;
const P = 'action_triggers_';
let h: Awaited<ReturnType<typeof startDispatchHarness>>;
let rx: Receiver;

beforeAll(async () => {
  rx = await startReceiver();
  h = await startDispatchHarness(
    {
      brokers: {
        orders: { broker_type: 'rabbitmq', conn_details: { url: testServers().rabbit.url }, params: { queue: `metrics-${randomUUID()}` } },
      },
    },
    { metrics: createMetrics() },
  );
});
afterAll(async () => {
  await h?.close();
  await rx?.close();
});

const scrape = async (): Promise<Sample[]> => {
  const res = await request(h.app).get('/metrics').expect(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(res.text);
};

const order = (id?: string) => ({
  ...(id ? { id } : {}),
  signal: 'post_save',
  app_label: 'shop',
  model_name: 'order',
  instance: { id: 1 },
});

test('after a known run the page counts exactly its signals, deliveries, retries and failures, and parses as Prometheus text', async () => {
  // Each signal: /ok delivered at once; /flaky fails once in all (one retry); /down fails all 5 attempts (TEST_RETRY); one queue message.
  rx.script('/flaky', [{ status: 500 }]);
  rx.script(
    '/down',
    Array.from({ length: 5 * N }, () => ({ status: 500 })),
  );
  await postTrigger(
    h.app,
    triggerBody({
      webhooks: [
        { url: rx.url('/ok'), http_method: 'POST' },
        { url: rx.url('/flaky'), http_method: 'POST' },
        { url: rx.url('/down'), http_method: 'POST' },
      ],
      msg_broker_queues: [{ name: 'orders' }],
      payload: { id: '{{ instance.id }}' },
    }),
  );

  const ids = Array.from({ length: N }, () => randomUUID());
  for (const id of ids) await request(h.app).post('/api/signals').send(order(id)).expect(202);
  expect((await request(h.app).post('/api/signals').send(order(ids[0])).expect(202)).body.duplicate).toBe(true);
  await request(h.app)
    .post('/api/signals')
    .send({ ...order(), signal: 'post_sav' })
    .expect(400);
  await request(h.app)
    .post('/api/signals')
    .send({ ...order(), model_name: 'invoice' })
    .expect(202);
  for (const id of ids) await waitForDispatch(h.app, id);

  const page = await scrape();
  const signals = (outcome: string) => valueOf(page, `${P}signals_total`, { outcome });
  expect([signals('accepted'), signals('duplicate'), signals('rejected'), signals('unmatched')]).toEqual([N, 1, 1, 1]);
  const deliveries = (kind: string, brokerType: string, outcome: string) =>
    valueOf(page, `${P}deliveries_total`, { kind, broker_type: brokerType, outcome });
  expect(deliveries('webhook', 'none', 'delivered')).toBe(2 * N);
  expect(deliveries('webhook', 'none', 'retrying')).toBe(1 + 4 * N);
  expect(deliveries('webhook', 'none', 'failed')).toBe(N);
  expect(deliveries('broker', 'rabbitmq', 'delivered')).toBe(N);
  expect(page.filter((s) => s.name === `${P}deliveries_total`)).toHaveLength(4);
  expect(valueOf(page, `${P}attempt_duration_seconds_count`, { kind: 'webhook', broker_type: 'none' })).toBe(2 * N + 1 + 4 * N + N);
  expect(valueOf(page, `${P}attempt_duration_seconds_count`, { kind: 'broker', broker_type: 'rabbitmq' })).toBe(N);
  expect(valueOf(page, `${P}delivery_latency_seconds_count`, { kind: 'webhook' })).toBe(2 * N);
  expect(valueOf(page, `${P}delivery_latency_seconds_count`, { kind: 'broker' })).toBe(N);
  expect(valueOf(page, `${P}event_store_append_duration_seconds_count`)).toBeGreaterThanOrEqual(N + 1);
  expect(valueOf(page, `${P}projection_lag_events`)).toBe(0);
  expect(valueOf(page, `${P}projection_lag_seconds`)).toBe(0);
  expect(valueOf(page, `${P}http_requests_total`, { route: '/api/signals', method: 'POST', status: '202' })).toBe(N + 2);
  expect(valueOf(page, `${P}http_requests_total`, { route: '/api/signals', method: 'POST', status: '400' })).toBe(1);
  // The Node process's own metrics are on the same page.
  expect(valueOf(page, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
  expect(page.some((s) => s.name === 'nodejs_heap_size_used_bytes')).toBe(true);
}, 60_000);
