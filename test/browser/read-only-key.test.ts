import type { Page } from 'playwright-core';
import { startReceiver, Receiver } from '../support/receiver';
import { triggerBody } from '../support/trigger-body';
import { apiCaller, eventually } from './support/api-calls';
import { AdminSession, seriousViolations, startAdminSession } from './support/admin-session';
import { fact, triggerLink } from './support/page-parts';

/**
 * With API keys configured, a read-only key (`triggers:read` only) on the pages around a trigger:
 * history, dispatches and a signal show their data; sending a test signal is refused at the
 * form with the reason, and nothing is sent.
 */
jest.setTimeout(180_000);

const ADMIN = 'admin-key-0123456789abcdef';
const READER = 'reader-key-0123456789abcdef';
let s: AdminSession;
let rx: Receiver;
let page: Page;
let asAdmin: <T = Record<string, unknown>>(method: string, path: string, body?: unknown) => Promise<T>;

beforeAll(async () => {
  rx = await startReceiver();
  s = await startAdminSession({
    config: {
      api_keys: [
        { id: 'admin', key: ADMIN, scopes: ['triggers:read', 'triggers:write', 'signals:write'] },
        { id: 'reader', key: READER, scopes: ['triggers:read'] },
      ],
    },
  });
  asAdmin = (method, path, body) => apiCaller(s.url)(method, path, body, { Authorization: `Bearer ${ADMIN}` });
});
afterAll(async () => {
  await s?.stop();
  await rx?.close();
});

describe("a read-only API key on a trigger's history, dispatches, signal and send-test pages", () => {
  let id: string;
  let signalId: string;

  beforeAll(async () => {
    id = (
      await asAdmin(
        'POST',
        '/api/action-triggers',
        triggerBody({ app: 'keyed', model: 'parcel', webhooks: [{ url: rx.url('/keyed'), http_method: 'POST' }] }),
      )
    ).id as string;
    await asAdmin('PATCH', `/api/action-triggers/${id}`, { webhooks: [{ url: rx.url('/keyed-2'), http_method: 'POST' }] });
    const sent = await asAdmin('POST', '/api/signals', {
      signal: 'post_save',
      app_label: 'keyed',
      model_name: 'parcel',
      instance: { id: 1 },
    });
    signalId = String(sent.id);
    await eventually(
      async () => ((await asAdmin('GET', `/api/signals/${signalId}`)).state === 'completed' ? true : undefined),
      30_000,
      'signal completed',
    );
  });

  it('asks for a key once; with the read-only key the history shows its events and diff', async () => {
    page = await s.open(`/triggers/${id}/history`);
    await page.getByRole('dialog', { name: 'API key' }).waitFor();
    await page.getByRole('textbox', { name: 'API key' }).fill(READER);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: `History of trigger ${id}` }).waitFor();
    expect(await page.locator('table.history > tbody > tr:not(.change) > td:nth-child(2)').allTextContents()).toEqual([
      'Created',
      'Updated',
    ]);
    expect(await page.locator('table.history > tbody > tr:not(.change) > td:nth-child(3)').allTextContents()).toEqual(['admin', 'admin']);
    expect(await page.locator('.diff ins').allTextContents()).toEqual([expect.stringContaining(rx.url('/keyed-2'))]);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('lists its dispatch on the dispatches page, and the signal page shows it delivered', async () => {
    await triggerLink(page, 'Dispatches').click();
    await page.getByRole('heading', { name: `Dispatches of trigger ${id}` }).waitFor();
    const row = page.locator(`tr[data-workflow-id="signal-${signalId}"]`);
    await eventually(
      async () => {
        if ((await row.count()) === 1) return true;
        await page.getByRole('button', { name: 'Refresh' }).click();
        await page.getByRole('heading', { name: `Dispatches of trigger ${id}` }).waitFor();
        return undefined;
      },
      30_000,
      'dispatch listed',
    );
    await row.locator('.outcomes li', { hasText: 'delivered' }).waitFor();
    expect(await row.locator('.outcomes li').allTextContents()).toEqual(['webhook #0 delivered · 1 attempt · status 200']);
    expect(await seriousViolations(page)).toEqual([]);

    await row.getByRole('link', { name: signalId, exact: true }).click();
    await page.getByRole('heading', { name: `Signal ${signalId}` }).waitFor();
    expect(await fact(page, 'State').textContent()).toBe('completed');
    expect(await page.locator('table.actions-table .state').allTextContents()).toEqual(['delivered']);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('refuses a test signal at the form: the key lacks signals:write; nothing is sent and the page stays usable', async () => {
    await page.evaluate(`location.hash = '#/triggers/${id}/send-test'`);
    await page.getByRole('heading', { name: `Send a test signal for trigger ${id}` }).waitFor();
    const before = rx.received.length;
    await page.getByRole('button', { name: 'Send test signal' }).click();
    const form = page.getByRole('form', { name: 'Test signal' });
    const refusal = form.getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.textContent()).toBe('Your API key may not send signals: it lacks the signals:write scope. Nothing was sent.');
    expect(await page.evaluate('document.activeElement?.getAttribute("role")')).toBe('alert');
    // Not a page error: the form is still there, no field marked, nothing sent, nothing shown as sent.
    expect(await page.getByLabel('Sample instance (JSON object)').getAttribute('aria-invalid')).toBe('false');
    expect(await page.locator('#result-heading').count()).toBe(0);
    expect(rx.received.length).toBe(before);
    expect((await asAdmin<{ items: Array<{ id: string }> }>('GET', `/api/signals?trigger_id=${id}`)).items.map((x) => x.id)).toEqual([
      signalId,
    ]);
    expect(await seriousViolations(page)).toEqual([]);
    // The key stays for the session, not in the address or local storage.
    expect(await page.evaluate('localStorage.length')).toBe(0);
    expect(page.url()).not.toContain(READER);
  });

  it('shows no console error, page error or 5xx', () => {
    s.expectClean();
  });
});
