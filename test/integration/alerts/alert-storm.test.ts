import request from 'supertest';
import { createMetrics } from '../../../src/observability/metrics';
import { startDispatchHarness, TEST_RETRY } from '../../support/dispatch-harness';
import { startReceiver } from '../../support/receiver';
import { waitForDispatch } from '../../support/signals';
import { postTrigger, triggerBody } from '../../support/trigger-body';
import { alertsAtSink, newSecret } from '../../support/alerts';

/**
 * A storm: 20 triggers on one content type, each with a webhook to a receiver that fails every
 * attempt, and 50 signals: 1,000 failed dispatches. The breaker's threshold is 100, so each
 * action goes through two changes of state (exhausted at its first failure, failing at 50 %):
 * 40 alerts, no more, each at the sink exactly once, in few messages (the sink's default rate of
 * 6 a minute: the rest wait and go as digests), and counted.
 */
const TRIGGERS = 20;
const SIGNALS = 50;
const SECRET = newSecret();

test(`${SIGNALS} signals to ${TRIGGERS} failing triggers (${SIGNALS * TRIGGERS} failed dispatches): ${TRIGGERS * 2} alerts, each once at the sink, in digests at its rate`, async () => {
  const target = await startReceiver();
  const sink = await startReceiver();
  const metrics = createMetrics({ defaultMetrics: false });
  const h = await startDispatchHarness(
    {
      allow_private_targets: true,
      retry: { ...TEST_RETRY, max_attempts: 1 },
      breaker: { consecutive_failures: 100, failing_for_hours: 1000 },
      alerts: { sinks: [{ name: 'ops', type: 'webhook', url: sink.url('/alerts'), secret: SECRET }] },
    },
    { metrics },
  );
  try {
    target.respond(() => ({ status: 500 }));
    for (let t = 0; t < TRIGGERS; t++)
      await postTrigger(h.app, triggerBody({ model: 'storm', webhooks: [{ url: target.url(`/t${t}`), http_method: 'POST' }] }));
    const signals = Array.from({ length: SIGNALS }, (_, i) => ({
      signal: 'post_save',
      app_label: 'shop',
      model_name: 'storm',
      instance: { id: i },
    }));
    const ids = ((await request(h.app).post('/api/signals').send(signals).expect(202)).body as Array<{ id: string }>).map((s) => s.id);
    for (const id of ids) await waitForDispatch(h.app, id, undefined, 60_000);

    const atSink = () => alertsAtSink(sink.on('/alerts'), SECRET);
    const end = Date.now() + 90_000;
    while (atSink().length < TRIGGERS * 2 && Date.now() < end) await new Promise((r) => setTimeout(r, 200));
    // Nothing more comes: a settled run raises no alert per further failure.
    await new Promise((r) => setTimeout(r, 1500));

    const alerts = atSink();
    const byType = (type: string) => alerts.filter((a) => a.type === type).length;
    expect([alerts.length, new Set(alerts.map((a) => a.id)).size]).toEqual([TRIGGERS * 2, TRIGGERS * 2]);
    expect([byType('action.exhausted'), byType('action.failing')]).toEqual([TRIGGERS, TRIGGERS]);
    // At 6 a minute, the 40 alerts went in a few messages (one per 10 s while they were being raised), not one each.
    const messages = sink.on('/alerts').length;
    expect(messages).toBeLessThanOrEqual(13);
    const feed = (await request(h.app).get('/api/alerts?limit=100').expect(200)).body as { alerts: Array<{ id: string }> };
    expect(feed.alerts.map((a) => a.id).sort()).toEqual(alerts.map((a) => a.id).sort());
    const page = await metrics.registry.metrics();
    expect(page).toContain(`action_triggers_alerts_raised_total{type="action.exhausted"} ${TRIGGERS}`);
    expect(page).toContain(`action_triggers_alerts_raised_total{type="action.failing"} ${TRIGGERS}`);
    expect(page).toContain(`action_triggers_alerts_sent_total{sink="ops",outcome="sent"} ${TRIGGERS * 2}`);
    expect(page).toContain(`action_triggers_alert_sends_total{sink="ops",outcome="sent"} ${messages}`);
  } finally {
    await h.close();
    await target.close();
    await sink.close();
  }
}, 240_000);
