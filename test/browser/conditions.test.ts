import type { Page } from 'playwright-core';
import { startReceiver, Receiver } from '../support/receiver';
import { triggerBody } from '../support/trigger-body';
import { apiCaller, eventually } from './support/api-calls';
import { AdminSession, screenshot, seriousViolations, startAdminSession } from './support/admin-session';
import { describedBy, expectOneDeliveredAction, fact, fieldId } from './support/page-parts';

/**
 * Trigger conditions in the admin (docs/conditions.md): written in the trigger form (a parse error
 * at once, the API's errors at their path on the field), shown on the trigger page, explained on
 * a signal's page when false, and tried by the dry runs, with and without `previous`.
 */
jest.setTimeout(180_000);

let s: AdminSession;
let rx: Receiver;
let call: ReturnType<typeof apiCaller>;
const run = Math.random().toString(36).slice(2, 8);

beforeAll(async () => {
  rx = await startReceiver();
  s = await startAdminSession();
  call = apiCaller(s.url);
});
afterAll(async () => {
  await s?.stop();
  await rx?.close();
});

interface TriggerJson {
  id: string;
  version: number;
  condition?: unknown;
}

const idOfHash = (page: Page) => /#\/triggers\/([0-9a-f-]{36})$/.exec(page.url())?.[1];
const CONDITION = fieldId('condition');
const preview = (page: Page) => page.locator('#preview-output');
const conditionLine = (page: Page, scope = '') => page.locator(`${scope} .condition-result`);

/** A transition: fires when a save takes the order from pending to paid. */
const TRANSITION = { 'instance.status': { $changed: { from: 'pending', to: 'paid' } } };

const settled = (id: string) =>
  eventually(
    async () => {
      const view = await call<{ state: string }>('GET', `/api/signals/${id}`);
      return ['completed', 'unmatched', 'failed'].includes(view.state) ? view : undefined;
    },
    30_000,
    `signal ${id} settled`,
  );

describe('trigger conditions in the admin', () => {
  let transitionTrigger: string;

  beforeAll(async () => {
    transitionTrigger = (
      await call<TriggerJson>(
        'POST',
        '/api/action-triggers',
        triggerBody({ model: `order_${run}`, condition: TRANSITION, webhooks: [{ url: rx.url('/paid'), http_method: 'POST' }] }),
      )
    ).id;
  });

  it("creates a trigger with a condition through the form: a parse error at once, the API's errors at their path on the field", async () => {
    const page = await s.open('/triggers/new');
    await page.getByRole('heading', { name: 'New trigger' }).waitFor();
    // The hint says what a condition takes without the docs.
    expect(await describedBy(page, CONDITION)).toMatch(/\$eq.*\$in.*\$gte.*\$exists.*\$changed \$not.*\$and \$or \$nor/);
    await page.fill(fieldId('content_types[0].app_label'), 'shop');
    await page.fill(fieldId('content_types[0].model_name'), `form_${run}`);
    await page.fill(fieldId('webhooks[0].url'), rx.url('/form'));

    // JSON that does not parse: said at the field as typed, before any save.
    await page.fill(CONDITION, '{"instance.status": ');
    expect(await page.getAttribute(CONDITION, 'aria-invalid')).toBe('true');
    expect(await describedBy(page, CONDITION)).toMatch(/is not valid JSON/);
    await page.fill(CONDITION, '{"instance.status": "paid"}');
    expect(await page.getAttribute(CONDITION, 'aria-invalid')).toBeNull();
    expect(await describedBy(page, CONDITION)).not.toMatch(/is not valid JSON/);

    // JSON the API refuses: each error names its path under `condition`, and lands on the field.
    await page.fill(
      CONDITION,
      '{"$and": [{"instance.status": "paid"}, {"instance.total": {"$gt": "lots"}}], "instance.state": {"$neq": 1}}',
    );
    await page.getByRole('button', { name: 'Create trigger' }).click();
    const summary = page.locator('.error-summary');
    await summary.waitFor();
    expect(await summary.locator('li').count()).toBe(2);
    // docs/conditions.md spells a list item `.1`; io-ts paths elsewhere spell it `[1]`: either lands on the field.
    const inAnd = /condition\.\$and(\.1|\[1\])\.instance\.total\.\$gt/;
    for (const path of [inAnd, /condition\.instance\.state\.\$neq/])
      expect(await summary.getByRole('link', { name: path }).count()).toBe(1);
    expect(await page.getAttribute(CONDITION, 'aria-invalid')).toBe('true');
    const atField = await describedBy(page, CONDITION);
    expect(atField).toMatch(new RegExp(`${inAnd.source}: must be a number or an RFC 3339 timestamp`));
    expect(atField).toContain('condition.instance.state.$neq: ');
    expect(atField).toContain('$ne');
    // A summary link goes to the condition field.
    await summary.getByRole('link', { name: /condition\.instance\.state/ }).click();
    expect(await page.evaluate('document.activeElement?.id')).toBe('f-condition');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'trigger-new-condition-errors');

    // The live preview says whether the condition holds for the sample, without and with `previous`.
    const condition = { 'instance.status': { $changed: { to: 'paid' } }, 'instance.total': { $gte: 100 } };
    await page.fill(CONDITION, JSON.stringify(condition, null, 2));
    await page.fill('#preview-instance', '{"id": 1, "status": "paid", "total": 150}');
    await conditionLine(page, '#preview-output').filter({ hasText: 'the signal has no previous state' }).waitFor();
    expect(await conditionLine(page, '#preview-output').locator('code.clause').textContent()).toBe('condition.instance.status.$changed');
    expect(await preview(page).locator('.notice').textContent()).toMatch(/would not dispatch: the condition is false/);
    await page.fill('#preview-previous', '{"id": 1, "status": ');
    await preview(page).filter({ hasText: 'sample previous state: is not valid JSON' }).waitFor();
    await page.fill('#preview-previous', '{"id": 1, "status": "pending", "total": 150}');
    await conditionLine(page, '#preview-output').filter({ hasText: 'Condition: held.' }).waitFor();
    expect(await preview(page).locator('.notice').count()).toBe(0);
    await page.fill('#preview-instance', '{"id": 1, "status": "paid", "total": 99}');
    await conditionLine(page, '#preview-output').filter({ hasText: 'instance.total is not >= 100' }).waitFor();
    expect(await conditionLine(page, '#preview-output').locator('code.clause').textContent()).toBe('condition.instance.total.$gte');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'trigger-new-condition-preview');

    await page.getByRole('button', { name: 'Create trigger' }).click();
    await page.getByRole('heading', { name: new RegExp(`^Trigger shop\\.form_${run}`) }).waitFor();
    const id = idOfHash(page)!;
    expect((await call<TriggerJson>('GET', `/api/action-triggers/${id}`)).condition).toEqual(condition);
    // The trigger page shows it as JSON.
    expect(JSON.parse((await page.locator('pre.condition').textContent())!)).toEqual(condition);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'trigger-condition');

    // Edited: the form holds it; emptied and saved, the trigger has none and its page says so.
    await page.getByRole('link', { name: 'Edit', exact: true }).click();
    await page.getByRole('heading', { name: /^Edit trigger/ }).waitFor();
    expect(JSON.parse(await page.inputValue(CONDITION))).toEqual(condition);
    await page.fill(CONDITION, '');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: new RegExp(`^Trigger shop\\.form_${run}`) }).waitFor();
    await page.getByText('always (no condition)', { exact: true }).waitFor();
    const after = await call<TriggerJson>('GET', `/api/action-triggers/${id}`);
    expect(after.version).toBe(2);
    expect(after.condition).toBeUndefined();
  });

  it('shows on the trigger page the condition of a trigger written through the API', async () => {
    const page = await s.open(`/triggers/${transitionTrigger}`);
    await page.getByRole('heading', { name: new RegExp(`^Trigger shop\\.order_${run}`) }).waitFor();
    expect(JSON.parse((await page.locator('pre.condition').textContent())!)).toEqual(TRANSITION);
    expect(await page.getByText('always (no condition)').count()).toBe(0);
  });

  it('explains on the signal page a trigger whose condition was false: the clause and why', async () => {
    const without = `cond-${run}-without`;
    const notPaid = `cond-${run}-not-paid`;
    const post = (id: string, extra: Record<string, unknown>) =>
      call('POST', '/api/signals', { id, signal: 'post_save', app_label: 'shop', model_name: `order_${run}`, ...extra });
    await post(without, { instance: { id: 7, status: 'paid' } });
    await post(notPaid, { instance: { id: 7, status: 'shipped' }, previous: { id: 7, status: 'paid' } });
    for (const id of [without, notPaid]) expect((await settled(id)).state).toBe('unmatched');

    const page = await s.open(`/signals/${without}`);
    await page.getByRole('heading', { name: `Signal ${without}` }).waitFor();
    expect(await fact(page, 'Reason').textContent()).toMatch(/condition/);
    const entry = page.locator('li[data-reason="condition_false"]');
    expect(await entry.count()).toBe(1);
    expect(await entry.getByRole('link').getAttribute('href')).toBe(`#/triggers/${transitionTrigger}`);
    expect(await entry.locator('code.clause').textContent()).toBe('condition.instance.status.$changed');
    expect(await entry.locator('.detail').textContent()).toBe('the signal has no previous state');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'signal-condition-false');

    await page.evaluate(`location.hash = '#/signals/${notPaid}'`);
    await page.getByRole('heading', { name: `Signal ${notPaid}` }).waitFor();
    expect(await entry.textContent()).toContain(
      'condition false at condition.instance.status.$changed: instance.status did not change from "pending" to "paid"',
    );
  });

  it('dry-runs on the send-test page with and without previous, then sends previous with a real signal', async () => {
    const page = await s.open(`/triggers/${transitionTrigger}/send-test`);
    await page.getByRole('heading', { name: `Send a test signal for trigger ${transitionTrigger}` }).waitFor();
    expect(JSON.parse((await page.locator('pre.condition').textContent())!)).toEqual(TRANSITION);
    await page.getByLabel('Sample instance (JSON object)').fill('{"id": 7, "status": "paid"}');
    const dryRun = page.getByRole('button', { name: 'Dry run (send nothing)' });
    const result = page.locator('section[aria-labelledby="result-heading"]');

    await dryRun.click();
    await conditionLine(page).filter({ hasText: 'the signal has no previous state' }).waitFor();
    expect(await result.locator('#result-heading').textContent()).toBe('Dry run (nothing was sent)');
    expect(await conditionLine(page).locator('code.clause').textContent()).toBe('condition.instance.status.$changed');
    expect(await result.locator('.notice').textContent()).toMatch(/would not dispatch/);

    const previous = page.getByLabel('Previous state (JSON object, optional)');
    await previous.fill('{"id": 7, "status": "pending"}');
    await dryRun.click();
    await conditionLine(page).filter({ hasText: 'Condition: held.' }).waitFor();
    expect(await result.locator('.notice').count()).toBe(0);
    expect(await result.locator('.preview-action h3').textContent()).toBe(`Webhook 1: POST ${rx.url('/paid')}`);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'send-test-dry-run');

    // A previous state that is not an object: the API's error at the field.
    await previous.fill('[1]');
    await dryRun.click();
    await page.locator(`${fieldId('previous')}[aria-invalid="true"]`).waitFor();
    expect(await describedBy(page, fieldId('previous'))).toMatch(/^previous: must be an object/);
    expect(rx.on('/paid')).toHaveLength(0);

    // Sent for real with previous: the condition holds, the webhook is delivered.
    await previous.fill('{"id": 7, "status": "pending"}');
    await page.getByRole('button', { name: 'Send test signal' }).click();
    await page.locator('#result-heading a').waitFor();
    await fact(page, 'State').getByText('completed', { exact: true }).waitFor({ timeout: 30_000 });
    await expectOneDeliveredAction(page);
    expect(rx.on('/paid')).toHaveLength(1);
    expect(JSON.parse(rx.on('/paid')[0]!.body)).toMatchObject({ instance: { id: 7, status: 'paid' } });
  });

  it('shows no console error, page error or 5xx in the whole file', () => {
    s.expectClean();
  });
});
