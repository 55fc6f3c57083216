import { startReceiver, Receiver } from '../support/receiver';
import { freePort } from '../support/free-port';
import { triggerBody } from '../support/trigger-body';
import { apiCaller, eventually } from './support/api-calls';
import { AdminSession, screenshot, seriousViolations, startAdminSession } from './support/admin-session';

/** A signal's page offers to cancel its pending deliveries: confirmed in a dialog, then shown cancelled with who and when. */
jest.setTimeout(120_000);

let s: AdminSession;
let revived: Receiver | undefined;
let call: ReturnType<typeof apiCaller>;
beforeAll(async () => {
  // Retries every 0.5–1 s: the delivery to a dead port keeps retrying while the page is used.
  s = await startAdminSession({
    config: { retry: { initial_interval_secs: 0.5, backoff_coefficient: 2, max_interval_secs: 1, max_attempts: 200 } },
  });
  call = apiCaller(s.url);
});
afterAll(async () => {
  await s?.stop();
  await revived?.close();
});

it('cancels a delivery retrying against a dead host from the signal page; it is never attempted again', async () => {
  const port = await freePort();
  await call(
    'POST',
    '/api/action-triggers',
    triggerBody({ model: 'doomed', webhooks: [{ url: `http://127.0.0.1:${port}/dead`, http_method: 'POST' }] }),
  );
  const id = `cancel-${Math.random().toString(36).slice(2, 8)}`;
  await call('POST', '/api/signals', { id, signal: 'post_save', app_label: 'shop', model_name: 'doomed', instance: { id: 1 } });

  const page = await s.open(`/signals/${id}`);
  const row = page.locator('table.actions-table tbody tr').first();
  await eventually(async () => ((await row.locator('.state').textContent()) === 'retrying' ? true : undefined), 30_000, 'retrying');
  await page.getByRole('button', { name: 'Cancel pending deliveries' }).click();
  const dialog = page.getByRole('dialog', { name: 'Cancel pending deliveries?' });
  await dialog.waitFor();
  expect(await dialog.textContent()).toContain('1 delivery of this signal will not be attempted again');
  expect(await seriousViolations(page)).toEqual([]);
  await dialog.getByRole('button', { name: 'Cancel deliveries' }).click();

  await eventually(async () => ((await row.locator('.state').textContent()) === 'cancelled' ? true : undefined), 10_000, 'cancelled');
  expect(await row.locator('td .muted').textContent()).toMatch(/^by anonymous /);
  expect(await page.getByRole('button', { name: 'Cancel pending deliveries' }).isHidden()).toBe(true);
  expect(await page.locator('.facts .state').first().textContent()).toBe('completed');
  await screenshot(page, 'signal-cancelled');

  revived = await startReceiver({}, '127.0.0.1', port);
  await new Promise((r) => setTimeout(r, 2500));
  expect(revived.received).toEqual([]);
});
