import request from 'supertest';
import { startDispatchHarness, TEST_RETRY } from '../../support/dispatch-harness';
import { startReceiver, Receiver } from '../../support/receiver';
import { waitForDispatch } from '../../support/signals';
import { postTrigger, triggerBody } from '../../support/trigger-body';
import { alertsAtSink as alertsAt, newSecret } from '../../support/alerts';

/**
 * Alerts from a real failing receiver, through the breaker, to a webhook sink on a loopback
 * receiver: each state change of the action once (exhausted, failing at 50 % and 90 %, the
 * trigger deactivated, recovered after its reactivation), each message verified with the
 * official Standard Webhooks library; the same alerts in the API's feed, and each one's outcome.
 */
const THRESHOLD = 10;
const SECRET = newSecret();
type Harness = Awaited<ReturnType<typeof startDispatchHarness>>;
let h: Harness;
let target: Receiver;
let sinkRx: Receiver;

beforeAll(async () => {
  target = await startReceiver();
  sinkRx = await startReceiver();
  h = await startDispatchHarness({
    allow_private_targets: true,
    retry: { ...TEST_RETRY, max_attempts: 1 },
    breaker: { consecutive_failures: THRESHOLD, failing_for_hours: 1000 },
    alerts: {
      admin_url: 'https://at.example.com/admin/',
      sinks: [{ name: 'ops', type: 'webhook', url: sinkRx.url('/alerts'), secret: SECRET, max_per_minute: 600 }],
    },
  });
});
afterAll(async () => {
  await h?.close();
  await target?.close();
  await sinkRx?.close();
});

/** Each alert the sink took, signatures verified. */
const alertsAtSink = () => alertsAt(sinkRx.on('/alerts'), SECRET);

const dispatchOnce = async (model: string) => {
  const accepted = (
    await request(h.app)
      .post('/api/signals')
      .send({ signal: 'post_save', app_label: 'shop', model_name: model, instance: { id: 1 } })
      .expect(202)
  ).body as { id: string };
  return waitForDispatch(h.app, accepted.id);
};

const until = async (done: () => boolean, ms: number, what: () => string) => {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error(`not met in ${ms} ms: ${what()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

test('a receiver failing every attempt: one alert per change of state at the sink, verified; the breaker trips: one trigger.deactivated; reactivated and delivering: one action.recovered', async () => {
  const trigger = await postTrigger(
    h.app,
    triggerBody({ model: 'alerted', webhooks: [{ url: target.url('/orders'), http_method: 'POST' }] }),
  );
  target.respond(() => ({ status: 500 }));
  const types = () => alertsAtSink().map((a) => a.type);

  for (let i = 1; i <= THRESHOLD; i++) {
    await dispatchOnce('alerted');
    // The failing alert at 90 % comes within one dispatch of the threshold.
    if (i === THRESHOLD - 1)
      await until(
        () => types().filter((t) => t === 'action.failing').length === 2,
        10_000,
        () => types().join(),
      );
  }
  await until(
    () => types().includes('trigger.deactivated'),
    10_000,
    () => types().join(),
  );
  expect(types()).toEqual(['action.exhausted', 'action.failing', 'action.failing', 'trigger.deactivated']);
  const [exhausted, half, ninety, off] = alertsAtSink() as unknown as Array<Record<string, unknown>>;
  expect(exhausted).toMatchObject({
    trigger_id: trigger.id,
    action: { key: 'w0', kind: 'webhook', name: `webhook 0 (${target.url('/orders')})` },
  });
  expect([half!.percent, half!.failed_dispatches, ninety!.percent, ninety!.failed_dispatches]).toEqual([50, 5, 90, 9]);
  expect(off).toMatchObject({ trigger_id: trigger.id, link: `https://at.example.com/admin/#/triggers/${trigger.id}` });
  expect(String(off!.reason)).toContain(`failed every attempt of ${THRESHOLD} consecutive dispatches`);

  // The receiver recovers; the trigger is switched on again and delivers.
  target.respond(() => undefined);
  await request(h.app).patch(`/api/action-triggers/${trigger.id}`).send({ active: true }).expect(200);
  let delivered = false;
  for (let tries = 0; !delivered && tries < 50; tries++) {
    const d = (await dispatchOnce('alerted')) as { actions?: Array<{ state: string }> };
    delivered = d.actions?.[0]?.state === 'delivered';
    if (!delivered) await new Promise((r) => setTimeout(r, 100));
  }
  expect(delivered).toBe(true);
  await until(
    () => types().includes('action.recovered'),
    10_000,
    () => types().join(),
  );
  // Nothing more: a second delivery is no change of state.
  await dispatchOnce('alerted');
  await new Promise((r) => setTimeout(r, 1000));
  expect(types()).toEqual(['action.exhausted', 'action.failing', 'action.failing', 'trigger.deactivated', 'action.recovered']);
  expect(alertsAtSink()[4]).toMatchObject({ failed_dispatches: THRESHOLD });

  // The same alerts in the feed, in order, and each one's outcome at the sink.
  const feed = (await request(h.app).get('/api/alerts').expect(200)).body as { alerts: Array<{ id: string; type: string }>; next: string };
  expect(feed.alerts.map((a) => a.id)).toEqual(alertsAtSink().map((a) => a.id));
  const recent = (await request(h.app).get('/api/alerts/recent').expect(200)).body as {
    sinks: Array<{ name: string; target: string; last_outcome?: { outcome: string } }>;
    alerts: Array<{ id: string; outcomes: Array<{ sink: string; outcome: string }> }>;
  };
  expect(recent.sinks).toEqual([
    expect.objectContaining({
      name: 'ops',
      target: new URL(sinkRx.url('/')).origin,
      last_outcome: expect.objectContaining({ outcome: 'sent' }),
    }),
  ]);
  expect(recent.alerts.map((a) => a.id)).toEqual(
    alertsAtSink()
      .map((a) => a.id)
      .reverse(),
  );
  expect(recent.alerts.every((a) => a.outcomes.length === 1 && a.outcomes[0]!.outcome === 'sent')).toBe(true);
}, 120_000);

test('a destination whose backlog goes past alerts.backlog_threshold: one destination.backlog alert at the sink', async () => {
  const rx = await startReceiver();
  const sink = await startReceiver();
  const limited = await startDispatchHarness({
    allow_private_targets: true,
    webhook_limits: [{ name: 'slow-partner', url_prefix: rx.url('/slow/'), max_per_second: 2 }],
    alerts: {
      backlog_threshold: 5,
      sinks: [{ name: 'ops', type: 'webhook', url: sink.url('/alerts'), secret: SECRET, max_per_minute: 600 }],
    },
  });
  try {
    await postTrigger(limited.app, triggerBody({ model: 'backlogged', webhooks: [{ url: rx.url('/slow/in'), http_method: 'POST' }] }));
    const signals = Array.from({ length: 60 }, (_, i) => ({
      signal: 'post_save',
      app_label: 'shop',
      model_name: 'backlogged',
      instance: { id: i },
    }));
    await request(limited.app).post('/api/signals').send(signals).expect(202);
    // Looked at every 15 s: within about that, the backlog of ~50 is seen.
    await sink.waitFor(() => sink.count('/alerts') > 0, 25_000);
    const [alert] = alertsAt(sink.on('/alerts'), SECRET);
    expect(alert).toMatchObject({
      type: 'destination.backlog',
      destination: 'webhook:slow-partner',
      threshold: 5,
      link: '/admin/#/limits',
    });
    expect(alert!.backlog).toBeGreaterThan(5);
  } finally {
    await limited.close();
    await rx.close();
    await sink.close();
  }
}, 60_000);
