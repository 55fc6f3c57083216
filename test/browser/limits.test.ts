import { startReceiver, Receiver } from '../support/receiver';
import { triggerBody } from '../support/trigger-body';
import { apiCaller, eventually } from './support/api-calls';
import { AdminSession, screenshot, seriousViolations, startAdminSession } from './support/admin-session';

/**
 * The limits page: the config's limits per destination, each with its backlog, read from
 * GET /api/destinations/limits. A slow limit (one webhook request every 5 s) and a burst of
 * signals leave a backlog that lasts long enough to be seen; the broker is never sent to.
 */
jest.setTimeout(120_000);

type Limit = { name: string; backlog: number };

let s: AdminSession;
let rx: Receiver;
let call: ReturnType<typeof apiCaller>;
beforeAll(async () => {
  rx = await startReceiver();
  s = await startAdminSession({
    config: {
      webhook_limits: [{ name: 'slow', url_prefix: rx.url('/slow'), max_per_second: 0.2 }],
      brokers: {
        events: {
          broker_type: 'rabbitmq',
          conn_details: { url: 'amqp://127.0.0.1:9' },
          params: { queue: 'e' },
          limits: { max_in_flight: 4 },
        },
      },
    },
  });
  call = apiCaller(s.url);
});
afterAll(async () => {
  await s?.stop();
  await rx?.close();
});

it('lists each limit with what it matches, its limits and its backlog', async () => {
  await call('POST', '/api/action-triggers', triggerBody({ model: 'paced', webhooks: [{ url: rx.url('/slow/in'), http_method: 'POST' }] }));
  const signals = [1, 2, 3, 4].map((id) => ({ signal: 'post_save', app_label: 'shop', model_name: 'paced', instance: { id } }));
  await call('POST', '/api/signals', signals);
  await eventually(
    async () => {
      const { limits } = await call<{ limits: Limit[] }>('GET', '/api/destinations/limits');
      return limits.find((l) => l.name === 'webhook:slow')!.backlog >= 2 ? true : undefined;
    },
    20_000,
    'a backlog behind the slow limit',
  );

  const page = await s.open('/triggers');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Limits', exact: true }).click();
  await page.getByRole('heading', { name: 'Destination limits' }).waitFor();
  const cells = (name: string) => page.locator(`tr[data-limit="${name}"] > *`).allTextContents();
  const slow = await cells('webhook:slow');
  expect(slow.slice(0, 5)).toEqual(['webhook:slow', rx.url('/slow'), '0.2', '1', '—']);
  // Slots go by every 5 s: the backlog seen through the API may be one less by now.
  expect(Number(slow[5])).toBeGreaterThanOrEqual(1);
  expect(slow.slice(6)).toEqual(['0', '—']);
  expect(await cells('broker:events')).toEqual(['broker:events', 'events', '—', '—', '4', '0', '0', '—']);

  await page.getByRole('button', { name: 'Refresh' }).click();
  await page.getByText('Limits refreshed').waitFor({ state: 'attached' });
  await screenshot(page, 'limits');
  expect(await seriousViolations(page)).toEqual([]);
  s.expectClean();
});
