import { startReceiver, Receiver } from '../support/receiver';
import { triggerBody } from '../support/trigger-body';
import { apiCaller, eventually } from './support/api-calls';
import { AdminSession, screenshot, seriousViolations, startAdminSession } from './support/admin-session';

/** The signal list: newest first, filtered by trigger and state through its form, paged; and a jump to one signal. */
jest.setTimeout(120_000);

let s: AdminSession;
let rx: Receiver;
let call: ReturnType<typeof apiCaller>;
beforeAll(async () => {
  rx = await startReceiver();
  s = await startAdminSession();
  call = apiCaller(s.url);
});
afterAll(async () => {
  await s?.stop();
  await rx?.close();
});

const emit = async (model: string, id: string) =>
  call('POST', '/api/signals', { id, signal: 'post_save', app_label: 'shop', model_name: model, instance: { id: 1 } });
const settled = (id: string) =>
  eventually(
    async () => {
      const view = await call<{ state: string }>('GET', `/api/signals/${id}`);
      return view.state === 'completed' || view.state === 'unmatched' ? view : undefined;
    },
    30_000,
    `signal ${id} settled`,
  );

describe('signals', () => {
  let triggerId: string;
  const run = Math.random().toString(36).slice(2, 8);
  const ids = [1, 2, 3].map((n) => `sig-${run}-${n}`);
  const lone = `sig-${run}-lone`;

  beforeAll(async () => {
    triggerId = (
      await call(
        'POST',
        '/api/action-triggers',
        triggerBody({ model: 'listed', webhooks: [{ url: rx.url('/listed'), http_method: 'POST' }] }),
      )
    ).id as string;
    for (const id of ids) {
      await emit('listed', id);
      await settled(id);
    }
    await emit('nobody_watches', lone);
    await settled(lone);
  });

  const rowIds = (page: Awaited<ReturnType<AdminSession['open']>>) => page.locator('table.signals tbody th a').allTextContents();

  it('lists signals newest first, and filters them by trigger and by state through the form', async () => {
    const page = await s.open('/signals');
    await page.getByRole('heading', { name: 'Signals' }).waitFor();
    await page.locator('table.signals').waitFor();
    expect(await rowIds(page)).toEqual([lone, ...[...ids].reverse()]);
    expect(await page.locator('table.signals tbody tr').first().locator('.state').textContent()).toBe('unmatched');

    await page.getByLabel('Trigger id').fill(triggerId);
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/trigger_id=/);
    await eventually(async () => ((await rowIds(page)).length === 3 ? true : undefined), 5000, 'filtered by trigger');
    expect(await rowIds(page)).toEqual([...ids].reverse());
    const first = page.locator('table.signals tbody tr').first();
    expect(await first.locator('td').nth(0).textContent()).toBe('post_save of shop.listed');
    expect(await first.locator('.state').textContent()).toBe('completed');
    expect(await first.getByRole('link', { name: triggerId }).getAttribute('href')).toBe(`#/triggers/${triggerId}`);
    expect(await first.locator('a.temporal-link').getAttribute('href')).toBe(
      `http://127.0.0.1:8233/namespaces/default/workflows/signal-${ids[2]}`,
    );

    await page.getByLabel('Trigger id').fill('');
    await page.getByLabel('State').selectOption('unmatched');
    await page.getByRole('button', { name: 'Filter' }).click();
    await eventually(async () => ((await rowIds(page)).length === 1 ? true : undefined), 5000, 'filtered by state');
    expect(await rowIds(page)).toEqual([lone]);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('pages with Next, Previous and First page links, keeping the filter', async () => {
    const page = await s.open(`/signals?trigger_id=${triggerId}&limit=2`);
    await page.locator('table.signals').waitFor();
    expect(await rowIds(page)).toEqual([ids[2], ids[1]]);
    await page.getByRole('link', { name: 'Next page' }).click();
    await page.getByRole('link', { name: 'First page' }).waitFor();
    expect(await rowIds(page)).toEqual([ids[0]]);
    expect(await page.getByRole('link', { name: 'Next page' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Previous page' }).click();
    await eventually(async () => ((await rowIds(page)).length === 2 ? true : undefined), 5000, 'previous page');
    expect(await rowIds(page)).toEqual([ids[2], ids[1]]);
    expect(await page.getByRole('link', { name: 'Previous page' }).count()).toBe(0);
    expect(page.url()).toContain(`trigger_id=${triggerId}`);
    await page.getByRole('link', { name: 'Next page' }).click();
    await page.getByRole('link', { name: 'First page' }).click();
    await eventually(async () => ((await rowIds(page)).length === 2 ? true : undefined), 5000, 'first page');
    await screenshot(page, 'signals');
  });

  it('says at the field that a trigger id is not one, without asking the API', async () => {
    const page = await s.open('/signals');
    await page.locator('table.signals').waitFor();
    const asked: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/')) asked.push(r.url());
    });
    await page.getByLabel('Trigger id').fill('not-a-uuid');
    await page.getByRole('button', { name: 'Filter' }).click();
    expect(await page.locator('#f-trigger_id-error').textContent()).toBe('trigger_id: must be a trigger id (a UUID)');
    expect(await page.getByLabel('Trigger id').getAttribute('aria-invalid')).toBe('true');
    expect(asked).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('opens a signal by its id', async () => {
    const page = await s.open('/signals');
    await page.getByLabel('Open a signal by id').fill(ids[0]!);
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByRole('heading', { name: `Signal ${ids[0]}` }).waitFor();
    expect(await page.locator('table.actions-table .state').textContent()).toBe('delivered');
    s.expectClean();
  });
});
