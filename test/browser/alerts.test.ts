import { startReceiver, Receiver } from '../support/receiver';
import { triggerBody } from '../support/trigger-body';
import { TEST_RETRY } from '../support/dispatch-harness';
import { alertsAtSink as alertsAt, newSecret } from '../support/alerts';
import { apiCaller, eventually } from './support/api-calls';
import { AdminSession, screenshot, seriousViolations, startAdminSession } from './support/admin-session';

/**
 * The alerts page: the config's sinks and the last alerts with each sink's outcome, read from
 * GET /api/alerts/recent. A receiver answering 500 to every attempt (one attempt per dispatch)
 * fails four dispatches in a row: the breaker (threshold 4) deactivates the trigger, which
 * raises action.exhausted, action.failing (50 %) and trigger.deactivated, each sent to a webhook
 * sink on a loopback receiver.
 */
jest.setTimeout(180_000);

const THRESHOLD = 4;
const SECRET = newSecret();

let s: AdminSession;
let target: Receiver;
let sinkRx: Receiver;
let call: ReturnType<typeof apiCaller>;
beforeAll(async () => {
  target = await startReceiver();
  sinkRx = await startReceiver();
  s = await startAdminSession({
    config: {
      allow_private_targets: true,
      retry: { ...TEST_RETRY, max_attempts: 1 },
      breaker: { consecutive_failures: THRESHOLD, failing_for_hours: 1000 },
      alerts: { sinks: [{ name: 'ops', type: 'webhook', url: sinkRx.url('/alerts'), secret: SECRET, max_per_minute: 600 }] },
    },
  });
  call = apiCaller(s.url);
});
afterAll(async () => {
  await s?.stop();
  await target?.close();
  await sinkRx?.close();
});

/** Each alert the sink took, signatures verified. */
const alertsAtSink = () => alertsAt(sinkRx.on('/alerts'), SECRET);

/** One signal, then its dispatch until it no longer changes. */
const dispatchOnce = async (model: string) => {
  const { id } = await call<{ id: string }>('POST', '/api/signals', {
    signal: 'post_save',
    app_label: 'shop',
    model_name: model,
    instance: { id: 1 },
  });
  await eventually(
    async () => {
      const d = await call<{ state: string }>('GET', `/api/signals/${id}`);
      return d.state === 'completed' || d.state === 'unmatched' ? d : undefined;
    },
    30_000,
    `the dispatch of signal ${id}`,
  );
};

it('lists the sink and each alert with its outcome at the sink, and links to the trigger', async () => {
  const trigger = await call<{ id: string }>(
    'POST',
    '/api/action-triggers',
    triggerBody({ model: 'alerted', webhooks: [{ url: target.url('/orders'), http_method: 'POST' }] }),
  );
  target.respond(() => ({ status: 500 }));
  for (let i = 0; i < THRESHOLD; i++) await dispatchOnce('alerted');
  const types = () => alertsAtSink().map((a) => a.type);
  await eventually(async () => (types().includes('trigger.deactivated') ? true : undefined), 20_000, 'trigger.deactivated at the sink');
  expect(types()).toEqual(['action.exhausted', 'action.failing', 'trigger.deactivated']);
  const sent = alertsAtSink();
  // The outcomes are recorded after the sink answered: wait until the API has all three.
  await eventually(
    async () => {
      const { alerts } = await call<{ alerts: Array<{ outcomes: unknown[] }> }>('GET', '/api/alerts/recent');
      return alerts.length === 3 && alerts.every((a) => a.outcomes.length === 1) ? true : undefined;
    },
    20_000,
    'an outcome for each alert',
  );

  const page = await s.open('/triggers');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Alerts', exact: true }).click();
  await page.getByRole('heading', { name: 'Alerts', level: 1 }).waitFor();

  const sink = await page.locator('tr[data-sink="ops"] > *').allTextContents();
  const origin = new URL(sinkRx.url('/')).origin;
  expect(sink.slice(0, 3)).toEqual(['ops', 'webhook', origin]);
  expect(sink.join(' ')).not.toContain('/alerts');
  expect(sink[6]).toMatch(/^sent /);

  // Newest first, each with its summary and the sink's outcome.
  const rows = page.locator('table.alerts tbody tr');
  expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-alert')))).toEqual(sent.map((a) => a.id).reverse());
  for (const a of sent) {
    const row = page.locator(`tr[data-alert="${a.id}"]`);
    expect(await row.locator('td.summary').textContent()).toBe(a.summary);
    expect(await row.locator('.outcome[data-sink="ops"] .outcome-word').textContent()).toBe('sent');
    expect(await row.locator('.outcome-error').count()).toBe(0);
  }
  expect(await page.locator('.no-sinks').count()).toBe(0);
  await screenshot(page, 'alerts');
  expect(await seriousViolations(page)).toEqual([]);

  const deactivated = sent.find((a) => a.type === 'trigger.deactivated')!;
  await page
    .locator(`tr[data-alert="${deactivated.id}"]`)
    .getByRole('link', { name: `Trigger ${trigger.id}` })
    .click();
  await page.waitForURL(`**/admin/#/triggers/${trigger.id}`);
  await page.getByRole('heading', { level: 1, name: /^Trigger / }).waitFor();

  // A config without sinks: the page says where to add them, and still lists the alerts.
  await page.route(/\/api\/alerts\/recent\b/, async (route) => {
    const real = await route.fetch();
    await route.fulfill({ response: real, json: { ...(await real.json()), sinks: [] } });
  });
  await page.goto(`${s.url}/admin/#/alerts`);
  await page.locator('.no-sinks').waitFor();
  expect(await page.locator('.no-sinks').textContent()).toContain('alerts section of the config');
  expect(await page.locator('table.sinks').count()).toBe(0);
  expect(await page.locator('table.alerts tbody tr').count()).toBe(3);
  expect(await page.locator('.outcome[data-sink="ops"] .outcome-word').allTextContents()).toEqual(['sent', 'sent', 'sent']);
  s.expectClean();
});
