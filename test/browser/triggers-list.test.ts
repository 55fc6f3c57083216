import type { Page } from 'playwright-core';
import { AdminSession, screenshot, seriousViolations, startAdminSession } from './support/admin-session';
import { aTrigger } from '../support/test-app';

/** The triggers list (filters, search, paging, active toggle), a trigger's page and delete, and API keys. */
jest.setTimeout(240_000);

interface TriggerJson {
  id: string;
  version: number;
  active: boolean;
  webhooks: Array<{ url: string }>;
}

const APPS = ['shop', 'blog', 'crm', 'billing', 'auth'];
/** The i-th of the 250 stored triggers: app by i % 5, inactive when i % 3 is 0, five with a special webhook host. */
const nth = (i: number) =>
  aTrigger({
    content_types: [{ app_label: APPS[i % 5], model_name: `model${i % 10}` }],
    webhooks: [
      { url: i % 50 === 7 ? `https://special-target.example.org/x${i}` : `https://hooks.example.com/t/${i}`, http_method: 'POST' },
    ],
    msg_broker_queues: [],
    active: i % 3 !== 0,
  });

/** Waits until the list's first row is (`is` true) or is not the trigger `id`. */
const firstRow = (page: Page, id: string, is: boolean) =>
  page.locator(`table.triggers tbody tr:first-child${is ? `[data-id="${id}"]` : `:not([data-id="${id}"])`}`).waitFor();

const rowIds = (page: Page) =>
  page.locator('table.triggers tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id') ?? ''));

describe('triggers list, open loopback mode', () => {
  let s: AdminSession;
  const created: string[] = [];
  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${s.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (res.status === 204 ? undefined : await res.json()) as TriggerJson };
  };

  beforeAll(async () => {
    s = await startAdminSession();
    for (let batch = 0; batch < 250; batch += 25) {
      const ids = await Promise.all(
        Array.from({ length: 25 }, async (_, j) => {
          const res = await api('POST', '/api/action-triggers', nth(batch + j));
          if (res.status !== 201) throw new Error(`trigger ${batch + j} not created: ${res.status}`);
          return res.body.id;
        }),
      );
      created.push(...ids);
    }
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('pages through all 250 triggers with Next page, no duplicates and no skips; back goes back', async () => {
    const page = await s.open('/triggers');
    const seen: string[] = [];
    const firstOfPage: string[] = [];
    for (;;) {
      await page.locator('table.triggers').waitFor();
      const ids = await rowIds(page);
      firstOfPage.push(ids[0]!);
      seen.push(...ids);
      if (seen.length === 50) {
        expect(await seriousViolations(page)).toEqual([]);
        await screenshot(page, 'triggers-list-first-page');
      }
      const next = page.getByRole('link', { name: 'Next page' });
      if ((await next.count()) === 0) break;
      await next.click();
      await firstRow(page, ids[0]!, false);
    }
    expect(seen).toHaveLength(250);
    expect(new Set(seen)).toEqual(new Set(created));
    expect(firstOfPage).toHaveLength(5);
    // The cursor is in the hash: back shows the page before, reload the same page.
    await page.goBack();
    await firstRow(page, firstOfPage[3]!, true);
    await page.reload();
    await firstRow(page, firstOfPage[3]!, true);
  });

  it('goes back with Previous page: next, next, previous, previous shows the same triggers, in order; the first page has none', async () => {
    const page = await s.open('/triggers');
    await page.locator('table.triggers').waitFor();
    const previous = page.getByRole('link', { name: 'Previous page' });
    const next = page.getByRole('link', { name: 'Next page' });
    expect(await previous.count()).toBe(0);
    const first = await rowIds(page);
    await next.click();
    await firstRow(page, first[0]!, false);
    const second = await rowIds(page);
    await next.click();
    await firstRow(page, second[0]!, false);
    const third = await rowIds(page);
    expect(new Set([...first, ...second, ...third]).size).toBe(150);
    expect(await seriousViolations(page)).toEqual([]);

    await previous.click();
    await firstRow(page, second[0]!, true);
    expect(await rowIds(page)).toEqual(second);
    // The way back is in the address: a reload keeps it.
    await page.reload();
    await firstRow(page, second[0]!, true);
    await previous.click();
    await firstRow(page, first[0]!, true);
    expect(await rowIds(page)).toEqual(first);
    expect(await previous.count()).toBe(0);
    expect(page.url()).toMatch(/#\/triggers$/);
  });

  it('filters by app_label and active through the form, kept in the hash across a reload', async () => {
    const page = await s.open('/triggers');
    await page.locator('table.triggers').waitFor();
    await page.getByLabel('App label').fill('shop');
    await page.getByLabel('Active', { exact: true }).selectOption('false');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/app_label=shop/);
    expect(page.url()).toMatch(/active=false/);
    await page.locator('table.triggers caption', { hasText: '17 triggers' }).waitFor();
    const expected = created.filter((_, i) => i % 5 === 0 && i % 3 === 0);
    expect(new Set(await rowIds(page))).toEqual(new Set(expected));
    expect(await page.locator('table.triggers tbody input[type=checkbox]:checked').count()).toBe(0);
    await screenshot(page, 'triggers-list');
    await page.reload();
    await page.locator('table.triggers caption', { hasText: '17 triggers' }).waitFor();
    expect(await page.getByLabel('App label').inputValue()).toBe('shop');
  });

  it('searches content types and webhook URLs with q', async () => {
    const page = await s.open('/triggers');
    await page.locator('table.triggers').waitFor();
    await page.getByLabel('Search content types and webhook URLs').fill('SPECIAL-target');
    await page.keyboard.press('Enter');
    await page.locator('table.triggers caption', { hasText: '5 triggers' }).waitFor();
    expect(new Set(await rowIds(page))).toEqual(new Set(created.filter((_, i) => i % 50 === 7)));
    await page.goto(`${s.url}/admin/#/triggers?q=billing.model3`);
    await page.locator('table.triggers caption', { hasText: '25 triggers' }).waitFor();
  });

  it('toggles a trigger off and on from its row, with If-Match; a conflict reloads the row', async () => {
    const { body: t } = await api(
      'POST',
      '/api/action-triggers',
      aTrigger({ content_types: [{ app_label: 'toggle', model_name: 'me' }], msg_broker_queues: [] }),
    );
    const page = await s.open('/triggers?app_label=toggle');
    const box = page.getByRole('checkbox', { name: `Active: toggle.me (${t.id.slice(0, 8)})` });
    await box.waitFor();
    expect(await box.isChecked()).toBe(true);
    await box.uncheck();
    await page.locator('#status', { hasText: 'is now inactive' }).waitFor();
    expect((await api('GET', `/api/action-triggers/${t.id}`)).body).toMatchObject({ active: false, version: 2 });
    await box.check();
    await page.locator('#status', { hasText: 'is now active' }).waitFor();
    expect((await api('GET', `/api/action-triggers/${t.id}`)).body).toMatchObject({ active: true, version: 3 });

    // Someone else deactivates it: the row's version is old, so the toggle is refused and the row shows the truth.
    expect((await api('PATCH', `/api/action-triggers/${t.id}`, { active: false }, { 'if-match': '"3"' })).status).toBe(200);
    await box.click(); // not uncheck(): the row is redrawn from the API's answer, not from the click
    await page.locator('#status', { hasText: 'changed by someone else' }).waitFor();
    expect(await box.isChecked()).toBe(false);
    expect((await api('GET', `/api/action-triggers/${t.id}`)).body).toMatchObject({ active: false, version: 4 });
  });

  it('shows a trigger and deletes it after a confirmation, with the keyboard', async () => {
    const { body: t } = await api(
      'POST',
      '/api/action-triggers',
      aTrigger({ content_types: [{ app_label: 'delete', model_name: 'me' }], msg_broker_queues: [] }),
    );
    const page = await s.open(`/triggers/${t.id}`);
    await page.getByRole('heading', { name: /^Trigger delete\.me/ }).waitFor();
    for (const name of ['Edit', 'History', 'Dispatches', 'Send a test signal']) {
      expect(await page.getByRole('link', { name, exact: true }).getAttribute('href')).toMatch(new RegExp(`^#/triggers/${t.id}`));
    }
    expect(await page.getByRole('cell', { name: 'https://hooks.example.com/orders', exact: true }).count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Delete…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this trigger?' });
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect((await api('GET', `/api/action-triggers/${t.id}`)).status).toBe(200);

    await page.getByRole('button', { name: 'Delete…' }).focus();
    await page.keyboard.press('Enter');
    await dialog.waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Cancel');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.waitForURL(/#\/triggers$/);
    await page.getByRole('heading', { name: 'Triggers' }).waitFor();
    expect((await api('GET', `/api/action-triggers/${t.id}`)).status).toBe(404);
  });

  it('shows no console error, page error or 5xx in the whole file', () => {
    s.expectClean();
  });
});

describe('triggers list with API keys', () => {
  const ADMIN = 'admin-key-0123456789abcdef';
  const READER = 'reader-key-0123456789abcdef';
  let s: AdminSession;
  beforeAll(async () => {
    s = await startAdminSession({
      config: {
        api_keys: [
          { id: 'admin', key: ADMIN, scopes: ['triggers:read', 'triggers:write', 'signals:write'] },
          { id: 'reader', key: READER, scopes: ['triggers:read'] },
        ],
      },
    });
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('asks for a key; a read-only key lists the triggers, and saving an edit is refused with a clear message', async () => {
    const res = await fetch(`${s.url}/api/action-triggers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN}` },
      body: JSON.stringify(aTrigger({ content_types: [{ app_label: 'keyed', model_name: 'thing' }], msg_broker_queues: [] })),
    });
    const t = (await res.json()) as TriggerJson;
    const page = await s.open('/triggers');
    const dialog = page.getByRole('dialog', { name: 'API key' });
    await dialog.waitFor();
    await page.getByRole('textbox', { name: 'API key' }).fill(READER);
    await page.keyboard.press('Enter');
    await page.getByRole('link', { name: 'keyed.thing' }).click();
    await page.getByRole('heading', { name: /^Trigger keyed\.thing/ }).waitFor();
    await page.getByRole('link', { name: 'Edit', exact: true }).click();
    await page.getByRole('heading', { name: /^Edit trigger keyed\.thing/ }).waitFor();
    await page.fill('#f-webhooks_0__url', 'https://hooks.example.com/changed');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('alert').filter({ hasText: 'Your API key may not change triggers' }).waitFor();
    // The preview needs triggers:write too: it says so in its panel.
    await page.locator('#preview-output', { hasText: 'may not run previews' }).waitFor();
    const stored = (await (
      await fetch(`${s.url}/api/action-triggers/${t.id}`, { headers: { authorization: `Bearer ${READER}` } })
    ).json()) as TriggerJson;
    expect(stored.webhooks[0]!.url).toBe('https://hooks.example.com/orders');
    // Kept for the session only: not in local storage, not in the address.
    expect(await page.evaluate('localStorage.length')).toBe(0);
    expect(await page.evaluate('sessionStorage.length')).toBe(1);
    expect(page.url()).not.toContain(READER);
    s.expectClean();
  });
});
