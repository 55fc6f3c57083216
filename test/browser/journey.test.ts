import type { Page } from 'playwright-core';
import { startReceiver, Receiver } from '../support/receiver';
import { apiCaller, eventually } from './support/api-calls';
import { AdminSession, screenshot, seriousViolations, startAdminSession } from './support/admin-session';
import { expectInvalidAtFields, expectOneDeliveredAction, fact, fieldId, timelineRows, triggerLink } from './support/page-parts';

/**
 * The must-show sequence as one user would do it, in one browser page, only through the
 * UI (the API is called only to check what the UI did): create with errors then fixed, toggle
 * off and on from the list, edit, see the diff, send a test signal to a real receiver, see the
 * dispatch, delete, and the deleted trigger's history and dispatches still there.
 */
jest.setTimeout(240_000);

let s: AdminSession;
let rx: Receiver;
let page: Page;
let call: ReturnType<typeof apiCaller>;

beforeAll(async () => {
  rx = await startReceiver();
  s = await startAdminSession();
  call = apiCaller(s.url);
  page = await s.open('/triggers');
});
afterAll(async () => {
  await s?.stop();
  await rx?.close();
});

const mainNav = (name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });

interface TriggerJson {
  id: string;
  version: number;
  active: boolean;
  webhooks: Array<{ url: string }>;
  payload?: unknown;
}

describe('the admin journey: one trigger from creation to deletion', () => {
  let id: string;
  let signalId: string;

  it('creates a trigger through the form: two invalid fields are shown at their fields at once, then fixed and saved', async () => {
    await mainNav('New trigger').click();
    await page.getByRole('heading', { name: 'New trigger' }).waitFor();
    // model_name left empty, and a URL that is not one.
    await page.fill(fieldId('content_types[0].app_label'), 'journey');
    await page.fill(fieldId('webhooks[0].url'), 'not a url');
    await page.fill(fieldId('payload'), '{"parcel": "{{ instance.id }}"}');
    await page.getByRole('button', { name: 'Create trigger' }).click();
    const summary = page.locator('.error-summary');
    await summary.waitFor();
    expect(await summary.locator('li').count()).toBe(2);
    await expectInvalidAtFields(page, ['content_types[0].model_name', 'webhooks[0].url']);
    expect(await page.getAttribute(fieldId('content_types[0].app_label'), 'aria-invalid')).toBeNull();
    await screenshot(page, 'journey-create-errors');

    await page.fill(fieldId('content_types[0].model_name'), 'parcel');
    await page.fill(fieldId('webhooks[0].url'), rx.url('/first'));
    await page.getByRole('button', { name: 'Create trigger' }).click();
    await page.getByRole('heading', { name: /^Trigger journey\.parcel/ }).waitFor();
    id = /#\/triggers\/([0-9a-f-]{36})$/.exec(page.url())![1]!;
    expect(await call<TriggerJson>('GET', `/api/action-triggers/${id}`)).toMatchObject({
      version: 1,
      active: true,
      webhooks: [{ url: rx.url('/first') }],
      payload: { parcel: '{{ instance.id }}' },
    });
  });

  it('toggles it inactive and active again from the list', async () => {
    await mainNav('Triggers').click();
    const row = page.locator(`table.triggers tr[data-id="${id}"]`);
    const toggle = row.getByRole('checkbox', { name: 'Active: journey.parcel' });
    expect(await toggle.isChecked()).toBe(true);
    await toggle.uncheck();
    await row.getByText('version 2').waitFor();
    expect(await toggle.isChecked()).toBe(false);
    expect(await call<TriggerJson>('GET', `/api/action-triggers/${id}`)).toMatchObject({ version: 2, active: false });
    await toggle.check();
    await row.getByText('version 3').waitFor();
    expect(await toggle.isChecked()).toBe(true);
    expect(await call<TriggerJson>('GET', `/api/action-triggers/${id}`)).toMatchObject({ version: 3, active: true });
  });

  it('edits its webhook URL and payload through the form, and its history shows that change as −/+ lines', async () => {
    await page.locator(`table.triggers tr[data-id="${id}"]`).getByRole('link', { name: 'journey.parcel' }).click();
    await page.getByRole('heading', { name: /^Trigger journey\.parcel/ }).waitFor();
    await page.getByRole('link', { name: 'Edit', exact: true }).click();
    await page.getByRole('heading', { name: /^Edit trigger journey\.parcel/ }).waitFor();
    expect(await page.inputValue(fieldId('webhooks[0].url'))).toBe(rx.url('/first'));
    await page.fill(fieldId('webhooks[0].url'), rx.url('/journey'));
    await page.fill(fieldId('payload'), '{"parcel_id": "{{ instance.id }}"}');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: /^Trigger journey\.parcel/ }).waitFor();
    expect(await call<TriggerJson>('GET', `/api/action-triggers/${id}`)).toMatchObject({
      version: 4,
      webhooks: [{ url: rx.url('/journey') }],
      payload: { parcel_id: '{{ instance.id }}' },
    });

    await page.getByRole('link', { name: 'History', exact: true }).click();
    await page.getByRole('heading', { name: `History of trigger ${id}` }).waitFor();
    expect(await timelineRows(page, 2)).toEqual([
      ['1', 'Created'],
      ['2', 'Deactivated'],
      ['3', 'Activated'],
      ['4', 'Updated'],
    ]);
    const edit = page.getByRole('group', { name: 'Changes from version 3 to version 4' });
    expect(await edit.locator('del').allTextContents()).toEqual([
      expect.stringMatching(/^− +"parcel": "\{\{ instance\.id \}\}"$/),
      expect.stringMatching(new RegExp(`^− +"url": "${rx.url('/first')}"$`)),
    ]);
    expect(await edit.locator('ins').allTextContents()).toEqual([
      expect.stringMatching(/^\+ +"parcel_id": "\{\{ instance\.id \}\}"$/),
      expect.stringMatching(new RegExp(`^\\+ +"url": "${rx.url('/journey')}"$`)),
    ]);
    // The toggles are there too, as the one line each changed.
    expect(await page.getByRole('group', { name: 'Changes from version 1 to version 2' }).locator('del, ins').allTextContents()).toEqual([
      '−   "active": true,',
      '+   "active": false,',
    ]);
    await screenshot(page, 'journey-history');
  });

  it('sends a test signal from its page to a real receiver: the dispatch reaches delivered with its one attempt', async () => {
    await triggerLink(page, 'Send a test signal').click();
    await page.getByRole('heading', { name: `Send a test signal for trigger ${id}` }).waitFor();
    await page.getByLabel('Sample instance (JSON object)').fill('{"id": 42}');
    await page.getByRole('button', { name: 'Send test signal' }).click();
    const heading = page.locator('#result-heading a');
    await heading.waitFor();
    signalId = (await heading.textContent())!;
    await fact(page, 'State').getByText('completed', { exact: true }).waitFor({ timeout: 30_000 });
    await expectOneDeliveredAction(page);
    expect(rx.on('/journey')).toHaveLength(1);
    expect(rx.on('/first')).toHaveLength(0);
    expect(JSON.parse(rx.on('/journey')[0]!.body)).toEqual({ parcel_id: 42 });
  });

  it('lists that dispatch on its dispatches page', async () => {
    await triggerLink(page, 'Dispatches').click();
    await page.getByRole('heading', { name: `Dispatches of trigger ${id}` }).waitFor();
    const row = page.locator(`tr[data-workflow-id="signal-${signalId}"]`);
    // Temporal's visibility lists a dispatch a little after it started.
    await eventually(
      async () => {
        if ((await row.count()) === 1 && ((await row.textContent()) ?? '').includes('completed')) return true;
        await page.getByRole('button', { name: 'Refresh' }).click();
        await page.getByRole('heading', { name: `Dispatches of trigger ${id}` }).waitFor();
        return undefined;
      },
      30_000,
      'dispatch listed as completed',
    );
    expect(await row.locator('.outcomes li').allTextContents()).toEqual(['webhook #0 delivered · 1 attempt · status 200']);
  });

  it('deletes it with the confirmation; its history still renders, with the deletion, and its dispatches stay listed', async () => {
    await triggerLink(page, 'Definition').click();
    await page.getByRole('heading', { name: /^Trigger journey\.parcel/ }).waitFor();
    await page.getByRole('button', { name: 'Delete…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this trigger?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('heading', { name: 'Triggers', exact: true }).waitFor();
    await page.getByText('No triggers yet.').waitFor();
    expect((await fetch(`${s.url}/api/action-triggers/${id}`)).status).toBe(404);

    // From the signal the trigger dispatched (the list no longer has it): its history and dispatches.
    await page.evaluate(`location.hash = '#/triggers/${id}/history'`);
    await page.getByRole('heading', { name: `History of trigger ${id}` }).waitFor();
    expect(await timelineRows(page, 2)).toEqual([
      ['1', 'Created'],
      ['2', 'Deactivated'],
      ['3', 'Activated'],
      ['4', 'Updated'],
      ['5', 'Deleted'],
    ]);
    expect(await page.getByText('The trigger was deleted; its history and dispatches are kept.').count()).toBe(1);
    await triggerLink(page, 'Dispatches').click();
    await page.getByRole('heading', { name: `Dispatches of trigger ${id}` }).waitFor();
    const row = page.locator(`tr[data-workflow-id="signal-${signalId}"]`);
    await row.waitFor();
    expect(await row.locator('.outcomes li').allTextContents()).toEqual(['webhook #0 delivered · 1 attempt · status 200']);
    // Only the pages a deleted trigger has, and why.
    expect(await page.getByRole('navigation', { name: 'This trigger' }).getByRole('link').allTextContents()).toEqual([
      'History',
      'Dispatches',
    ]);
    expect(await page.locator('.notice').textContent()).toBe('This trigger is deleted. Its dispatches are kept and listed here.');
    expect(await seriousViolations(page)).toEqual([]);
    expect(rx.on('/journey')).toHaveLength(1);
  });

  it('shows no console error, page error or 5xx during the whole journey', () => {
    s.expectClean();
  });
});
