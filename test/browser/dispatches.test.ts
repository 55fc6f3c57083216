import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startReceiver, Receiver } from '../support/receiver';
import { tempDir } from '../support/test-app';
import { triggerBody } from '../support/trigger-body';
import { apiCaller, eventually } from './support/api-calls';
import { AdminSession, screenshot, seriousViolations, startAdminSession } from './support/admin-session';
import { expectOneDeliveredAction, fact } from './support/page-parts';

/**
 * Test signals, a signal's page followed live, and a trigger's dispatches: real service, real
 * Temporal, real receiver, real Chromium. Two attempts at most, close together, so a failure is final quickly.
 */
jest.setTimeout(180_000);

const SECRET = `s3cr3t-${Math.random().toString(36).slice(2)}`;
let s: AdminSession;
let rx: Receiver;
let call: ReturnType<typeof apiCaller>;

let dir: string;
beforeAll(async () => {
  dir = tempDir('at-admin-secrets-');
  const module = join(dir, 'secrets.js');
  writeFileSync(module, `module.exports = { secrets: { token: () => ${JSON.stringify(SECRET)} } };\n`);
  rx = await startReceiver();
  s = await startAdminSession({
    config: {
      retry: { initial_interval_secs: 0.3, backoff_coefficient: 1, max_interval_secs: 0.3, max_attempts: 2 },
      dynamic_values: { module, allowed_paths: ['secrets.token'] },
    },
  });
  call = apiCaller(s.url);
});
afterAll(async () => {
  await s?.stop();
  await rx?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A trigger on `shop.<model>` (its own content type, so no other trigger takes the signal) with one webhook. */
const trigger = async (model: string, webhook: Record<string, unknown>, payload?: unknown) =>
  (
    await call(
      'POST',
      '/api/action-triggers',
      triggerBody({
        model,
        config_signals: [{ signal: 'post_save' }, { signal: 'post_delete' }],
        webhooks: [{ http_method: 'POST', ...webhook }],
        ...(payload === undefined ? {} : { payload }),
      }),
    )
  ).id as string;

/** Times of the page's requests for a trigger's dispatch list, as they happen. */
const listRequests = (page: Page, triggerId: string) => {
  const listed: number[] = [];
  page.on('request', (r) => {
    if (r.url().includes(`/api/action-triggers/${triggerId}/dispatches`)) listed.push(Date.now());
  });
  return listed;
};

/** Goes to the trigger's history page, then waits `ms`: the dispatches page asks for nothing more once left. */
const expectQuietAfterLeaving = async (page: Page, triggerId: string, listed: number[], ms: number) => {
  await page.evaluate(`location.hash = '#/triggers/${triggerId}/history'`);
  await page.getByRole('heading', { name: `History of trigger ${triggerId}` }).waitFor();
  const left = listed.length;
  await page.waitForTimeout(ms);
  expect(listed.length).toBe(left);
};

const temporalHref = (workflowId: string) => `http://127.0.0.1:8233/namespaces/default/workflows/${encodeURIComponent(workflowId)}`;

/** Sends a test signal from the send-test page; resolves to its id once the page shows it completed. */
const sendFromPage = async (page: Page, instance: string) => {
  await page.getByLabel('Sample instance (JSON object)').fill(instance);
  await page.getByRole('button', { name: 'Send test signal' }).click();
  const link = page.locator('#result-heading a');
  await link.waitFor();
  await fact(page, 'State').getByText('completed', { exact: true }).waitFor({ timeout: 30_000 });
  return (await link.textContent())!;
};

/** The dispatches page once Temporal's visibility lists `workflowId` (it lags the start a little). */
const dispatchesShowing = async (triggerId: string, workflowId: string, until: (row: string) => boolean = () => true) => {
  const page = await s.open(`/triggers/${triggerId}/dispatches`);
  await eventually(
    async () => {
      await page.getByRole('heading', { name: `Dispatches of trigger ${triggerId}` }).waitFor();
      const row = page.locator(`tr[data-workflow-id="${workflowId}"]`);
      if ((await row.count()) === 1 && until((await row.textContent()) ?? '')) return true;
      await page.getByRole('button', { name: 'Refresh' }).click();
      return undefined;
    },
    30_000,
    `dispatch ${workflowId} listed`,
  );
  return page;
};

describe('send a test signal, follow it, see it among the dispatches', () => {
  let okTrigger: string;
  let signalId: string;

  it('sends a test signal from the page and follows it live to delivered, with its one attempt', async () => {
    okTrigger = await trigger('parcel', { url: rx.url('/ok') });
    const page = await s.open(`/triggers/${okTrigger}/send-test`);
    await page.getByRole('heading', { name: `Send a test signal for trigger ${okTrigger}` }).waitFor();
    expect(await page.getByLabel('Signal', { exact: true }).locator('option').allTextContents()).toEqual(['post_save', 'post_delete']);
    expect(await page.getByLabel('Content type').inputValue()).toBe('0');
    expect(await page.getByLabel('Signal id').inputValue()).toMatch(/^test-[a-z0-9]+-[a-z0-9]+$/);
    expect(await seriousViolations(page)).toEqual([]);
    signalId = await sendFromPage(page, '{"id": 7, "name": "parcel seven"}');
    await expectOneDeliveredAction(page);
    expect(rx.on('/ok')).toHaveLength(1);
    expect(JSON.parse(rx.on('/ok')[0]!.body)).toMatchObject({ signal_id: signalId, instance: { id: 7, name: 'parcel seven' } });
    // A new id is ready for the next one: the same id again would not be dispatched again.
    expect(await page.getByLabel('Signal id').inputValue()).not.toBe(signalId);
    expect(await page.locator('#status').textContent()).toBe(`Signal ${signalId}: completed`);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'send-test');
  });

  it('lists that dispatch with its outcome, a link to its signal and to its workflow in the Temporal UI', async () => {
    const workflowId = `signal-${signalId}`;
    const page = await dispatchesShowing(okTrigger, workflowId, (text) => text.includes('completed'));
    const row = page.locator(`tr[data-workflow-id="${workflowId}"]`);
    expect(await row.locator('.outcomes li').allTextContents()).toEqual(['webhook #0 delivered · 1 attempt · status 200']);
    expect(await row.getByRole('link', { name: signalId, exact: true }).getAttribute('href')).toBe(`#/signals/${signalId}`);
    const temporal = row.locator('a.temporal-link');
    expect(await temporal.getAttribute('href')).toBe(temporalHref(workflowId));
    expect(await temporal.getAttribute('target')).toBe('_blank');
    expect(await temporal.getAttribute('rel')).toBe('noopener');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'trigger-dispatches');
  });

  it('shows a failed dispatch: the signal page follows it to failed, with the status code and last error, and so does the dispatches page', async () => {
    const failing = await trigger('crate', { url: rx.url('/fail') });
    rx.script('/fail', [{ status: 500 }, { status: 500 }, { status: 500 }]);
    const sent = await call('POST', '/api/signals', { signal: 'post_save', app_label: 'shop', model_name: 'crate', instance: { id: 1 } });
    const page = await s.open(`/signals/${String(sent.id)}`);
    await page.getByRole('heading', { name: `Signal ${String(sent.id)}` }).waitFor();
    await fact(page, 'State').getByText('completed', { exact: true }).waitFor({ timeout: 30_000 });
    const row = page.locator('table.actions-table tbody tr');
    expect(await row.locator('.state').textContent()).toBe('failed');
    expect(await row.locator('.attempts').textContent()).toBe('2');
    expect(await row.locator('.status-code').textContent()).toBe('500');
    expect(await row.locator('.last-error').textContent()).toMatch(/500/);
    expect(rx.on('/fail')).toHaveLength(2);
    expect(await fact(page, 'Outcome').textContent()).toBe('1 failed');
    expect(await fact(page, 'Workflow').locator('a.temporal-link').getAttribute('href')).toBe(temporalHref(String(sent.workflow_id)));
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'signal');

    const list = await dispatchesShowing(failing, String(sent.workflow_id), (text) => text.includes('(an action failed)'));
    const outcome = list.locator(`tr[data-workflow-id="${String(sent.workflow_id)}"] .outcomes li`);
    expect(await outcome.locator('.state').textContent()).toBe('failed');
    expect(await outcome.textContent()).toMatch(/^webhook #0 failed · 2 attempts · status 500Last error: .*500/);
    // The signal list says so too.
    const signals = await s.open(`/signals?trigger_id=${failing}`);
    await signals.locator('table.signals').waitFor();
    expect(await signals.locator('table.signals tbody tr').allTextContents()).toEqual([
      expect.stringContaining('completed (an action failed)'),
    ]);
    expect(await seriousViolations(signals)).toEqual([]);
  });

  it('follows a running dispatch live, and stops asking once the page is left', async () => {
    const slow = await trigger('pallet', { url: rx.url('/slow') });
    rx.script('/slow', [{ status: 200, delayMs: 4000 }]);
    const sent = await call('POST', '/api/signals', { signal: 'post_save', app_label: 'shop', model_name: 'pallet', instance: { id: 2 } });
    const id = String(sent.id);
    const page = await s.open(`/signals/${id}`);
    await page.getByText('(following live)').waitFor();
    const asked: number[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith(`/api/signals/${id}`)) asked.push(Date.now());
    });
    await eventually(async () => (asked.length >= 2 ? true : undefined), 5000, 'polled twice');
    // Leave for another page: no request for the signal after that.
    await page.evaluate(`location.hash = '#/triggers/${slow}/history'`);
    await page.getByRole('heading', { name: `History of trigger ${slow}` }).waitFor();
    const left = asked.length;
    await page.waitForTimeout(2500);
    expect(asked.length).toBe(left);
    // Back on it, once done, the Refresh button shows the final state.
    await rx.waitFor(() => rx.on('/slow').length === 1);
    await page.evaluate(`location.hash = '#/signals/${id}'`);
    await eventually(
      async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        return (await fact(page, 'State').textContent())?.startsWith('completed') ? true : undefined;
      },
      15_000,
      'completed',
    );
    expect(await page.locator('table.actions-table .state').textContent()).toBe('delivered');
  });

  it('follows a running dispatch on the dispatches page: the row shows running, then delivered without a click; then it stops asking', async () => {
    const barrel = await trigger('barrel', { url: rx.url('/barrel') });
    rx.script('/barrel', [{ status: 200, delayMs: 3000 }]);
    const sent = await call('POST', '/api/signals', { signal: 'post_save', app_label: 'shop', model_name: 'barrel', instance: { id: 5 } });
    const workflowId = String(sent.workflow_id);
    // The receiver holds its reply: from here the dispatch runs for about 3 s.
    await rx.waitFor(() => rx.on('/barrel').length === 1);
    const page = await dispatchesShowing(barrel, workflowId, (text) => text.includes('running'));
    const row = page.locator(`tr[data-workflow-id="${workflowId}"]`);
    expect(await row.locator('.state').first().textContent()).toBe('running');
    expect(await row.locator('.outcomes li').allTextContents()).toEqual([expect.not.stringContaining('delivered')]);
    const listed: number[] = [];
    const viewed: number[] = [];
    page.on('request', (r) => {
      if (r.url().includes(`/api/action-triggers/${barrel}/dispatches`)) listed.push(Date.now());
      if (r.url().endsWith(`/api/signals/${String(sent.id)}`)) viewed.push(Date.now());
    });
    // No click from here on.
    await row.locator('.outcomes li', { hasText: 'delivered' }).waitFor({ timeout: 20_000 });
    await row.locator('.state', { hasText: 'completed' }).waitFor({ timeout: 10_000 });
    expect(await row.locator('.outcomes li').allTextContents()).toEqual(['webhook #0 delivered · 1 attempt · status 200']);
    expect(await row.getByText('(following live)').count()).toBe(0);
    expect(listed.length).toBeGreaterThan(0);
    expect(await page.locator('#status').textContent()).toBe(`Dispatch of signal ${String(sent.id)}: completed`);
    // Final: its details are not asked for again (the first page still watches for new dispatches).
    const asked = viewed.length;
    await page.waitForTimeout(4500);
    expect(viewed.length).toBe(asked);
    expect(rx.on('/barrel')).toHaveLength(1);
  });

  it('stops following the dispatches page once it is left', async () => {
    const drum = await trigger('drum', { url: rx.url('/drum') });
    rx.script('/drum', [{ status: 200, delayMs: 5000 }]);
    const sent = await call('POST', '/api/signals', { signal: 'post_save', app_label: 'shop', model_name: 'drum', instance: { id: 6 } });
    await rx.waitFor(() => rx.on('/drum').length === 1);
    const page = await dispatchesShowing(drum, String(sent.workflow_id), (text) => text.includes('running'));
    const listed = listRequests(page, drum);
    await eventually(async () => (listed.length >= 1 ? true : undefined), 5000, 'followed');
    await expectQuietAfterLeaving(page, drum, listed, 2500);
  });

  it('picks up a new dispatch on a first page opened with none: it appears and reaches delivered without a click; leaving stops the asking', async () => {
    const bin = await trigger('bin', { url: rx.url('/bin') });
    const page = await s.open(`/triggers/${bin}/dispatches`);
    await page.getByText('No dispatches yet.').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    const listed = listRequests(page, bin);
    const sent = await call('POST', '/api/signals', { signal: 'post_save', app_label: 'shop', model_name: 'bin', instance: { id: 8 } });
    // No click from here on.
    const row = page.locator(`tr[data-workflow-id="${String(sent.workflow_id)}"]`);
    await row.locator('.outcomes li', { hasText: 'delivered' }).waitFor({ timeout: 30_000 });
    expect(await row.locator('.outcomes li').allTextContents()).toEqual(['webhook #0 delivered · 1 attempt · status 200']);
    expect(await page.locator('table.dispatches tbody tr').count()).toBe(1);
    expect(await page.getByText('No dispatches yet.').isVisible()).toBe(false);
    expect(rx.on('/bin')).toHaveLength(1);
    expect(await page.getByText('New dispatches appear here as they start (checked every 2 seconds).').isVisible()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await expectQuietAfterLeaving(page, bin, listed, 4500);
  });

  it('stops watching for new dispatches after 5 minutes with nothing new, says so, and Watch again starts it again', async () => {
    const idle = await trigger('idle', { url: rx.url('/idle') });
    // Its own context: the fake clock is the context's, and no other test's pages should run on it.
    const context = await s.browser.newContext();
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    const listed: number[] = [];
    page.on('request', (r) => {
      if (r.url().includes(`/api/action-triggers/${idle}/dispatches`)) listed.push(Date.now());
    });
    await page.clock.install();
    await page.goto(`${s.url}/admin/#/triggers/${idle}/dispatches`);
    await page.getByText('New dispatches appear here as they start').waitFor();
    await eventually(async () => (listed.length >= 3 ? true : undefined), 10_000, 'watching');
    await page.clock.fastForward('05:01');
    await page.getByText('Nothing new for 5 minutes, so this page stopped checking.').waitFor({ timeout: 10_000 });
    expect(await page.locator('#status').textContent()).toBe('Stopped watching for new dispatches');
    expect(await seriousViolations(page)).toEqual([]);
    const stopped = listed.length;
    await page.waitForTimeout(4500);
    expect(listed.length).toBe(stopped);
    await page.getByRole('button', { name: 'Watch again' }).click();
    await page.getByText('New dispatches appear here as they start').waitFor();
    await eventually(async () => (listed.length >= stopped + 2 ? true : undefined), 10_000, 'watching again');
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('never shows a resolved secret: the receiver gets it, the admin pages show only {{ secrets.token }}', async () => {
    const vault = await trigger(
      'vault',
      { url: rx.url('/vault'), headers: { Authorization: 'Bearer {{ secrets.token }}' } },
      { token_echo: '{{ secrets.token }}' },
    );
    const send = await s.open(`/triggers/${vault}/send-test`);
    await send.getByRole('heading', { name: `Send a test signal for trigger ${vault}` }).waitFor();
    const id = await sendFromPage(send, '{"id": 3}');
    expect(await send.locator('.signal-view table.actions-table .state').textContent()).toBe('delivered');
    expect(rx.on('/vault')[0]!.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(JSON.parse(rx.on('/vault')[0]!.body)).toEqual({ token_echo: SECRET });

    const history = await s.open(`/triggers/${vault}/history`);
    await history.getByRole('heading', { name: `History of trigger ${vault}` }).waitFor();
    await history.getByText('Definition at version 1').click();
    expect(await history.locator('pre.json').textContent()).toContain('"Authorization": "Bearer {{ secrets.token }}"');
    const signal = await s.open(`/signals/${id}`);
    await fact(signal, 'State').getByText('completed', { exact: true }).waitFor();
    const dispatches = await dispatchesShowing(vault, `signal-${id}`, (text) => text.includes('delivered'));
    for (const page of [send, history, signal, dispatches]) {
      // The whole document, attributes included, not only what is visible.
      expect(await page.content()).not.toContain(SECRET);
      expect(await page.evaluate('document.body.innerText')).not.toContain(SECRET);
    }
  });

  it("shows the API's field errors at their fields, all at once, and a bad JSON instance before sending", async () => {
    const target = await trigger('box', { url: rx.url('/box') });
    // Not a watched page: the 400 this test provides on purpose is logged by Chromium as a console error.
    const page = await s.context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    const posted: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST') posted.push(r.url());
    });
    await page.goto(`${s.url}/admin/#/triggers/${target}/send-test`);
    await page.getByLabel('Sample instance (JSON object)').fill('{ not json');
    await page.getByRole('button', { name: 'Send test signal' }).click();
    const instanceError = page.locator('#f-instance-error');
    await instanceError.waitFor();
    expect(await instanceError.textContent()).toMatch(/^instance: is not JSON/);
    expect(posted).toEqual([]);
    expect(await page.evaluate('document.activeElement?.id')).toBe('f-instance');

    await page.getByLabel('Sample instance (JSON object)').fill('[1, 2]');
    await page.getByLabel('Signal id').fill('not a valid id!');
    await page.getByRole('button', { name: 'Send test signal' }).click();
    await page.locator('#f-id-error').waitFor();
    expect(await page.locator('#f-id-error').textContent()).toMatch(/^id: must be 1-128 characters/);
    expect(await page.locator('#f-instance-error').textContent()).toMatch(/^instance: must be an object/);
    expect(await page.getByLabel('Signal id').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('Sample instance (JSON object)').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('Signal', { exact: true }).getAttribute('aria-invalid')).toBe('false');
    expect(rx.on('/box')).toHaveLength(0);
    expect(await seriousViolations(page)).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
    s.expectClean();
  });
});
