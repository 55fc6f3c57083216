import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { AdminSession, screenshot, seriousViolations, startAdminSession } from './support/admin-session';
import { describedBy, expectInvalidAtFields, fieldId } from './support/page-parts';
import { eventually } from './support/api-calls';
import { aTrigger } from '../support/test-app';
import { testServers } from '../support/servers';

/** The trigger form: create and edit, errors at their fields, If-Match, live preview, keyboard. */
jest.setTimeout(180_000);

const idOfHash = (page: Page) => /#\/triggers\/([0-9a-f-]{36})$/.exec(page.url())?.[1];

interface TriggerJson {
  id: string;
  version: number;
  payload?: unknown;
  config_signals: Array<{ signal: string }>;
  content_types: Array<{ app_label: string; model_name: string }>;
  webhooks: Array<{
    url: string;
    http_method: string;
    headers?: Record<string, string>;
    timeout_secs?: number;
    signing_secret?: string;
    payload?: unknown;
  }>;
  msg_broker_queues: Array<{ name: string; payload?: unknown }>;
}

describe('trigger form', () => {
  let s: AdminSession;
  const apiUrl = (path: string) => `${s.url}${path}`;
  const getTrigger = async (id: string) => {
    const res = await fetch(apiUrl(`/api/action-triggers/${id}`));
    return { status: res.status, etag: res.headers.get('etag'), body: (res.status === 200 ? await res.json() : undefined) as TriggerJson };
  };

  beforeAll(async () => {
    s = await startAdminSession({
      config: {
        dynamic_values: { module: join(__dirname, '../fixtures/dynamic-values.js'), allowed_paths: ['secrets.token'] },
        brokers: { orders: { broker_type: 'rabbitmq', conn_details: { url: testServers().rabbit.url }, params: { queue: 'orders' } } },
        signing_secrets: { orders: [{ secret: 'whsec_dGVzdC1vcmRlcnMtc2VjcmV0LTAxMjM0NTY3ODk=' }] },
      },
    });
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('shows every API error at its field at once, then creates the trigger once they are fixed', async () => {
    const page = await s.open('/triggers/new');
    await page.getByRole('heading', { name: 'New trigger' }).waitFor();
    await page.fill(fieldId('content_types[0].app_label'), 'shop');
    await page.fill(fieldId('webhooks[0].url'), 'not a url');
    await page.getByRole('button', { name: 'Create trigger' }).click();

    const summary = page.locator('.error-summary');
    await summary.waitFor();
    expect(await summary.locator('li').count()).toBe(2);
    await expectInvalidAtFields(page, ['content_types[0].model_name', 'webhooks[0].url']);
    for (const path of ['content_types[0].model_name', 'webhooks[0].url']) {
      await expect(summary.getByRole('link', { name: new RegExp(path.replace(/[[\].]/g, '\\$&')) }).count()).resolves.toBe(1);
    }
    expect(await describedBy(page, fieldId('webhooks[0].url'))).toMatch(/url|URL/);
    // A summary link moves focus to its field, and the hash (the route) stays.
    await summary.getByRole('link', { name: /webhooks\[0\]\.url/ }).click();
    expect(await page.evaluate('document.activeElement?.id')).toBe('f-webhooks_0__url');
    expect(page.url()).toMatch(/#\/triggers\/new$/);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'trigger-new-errors');

    await page.fill(fieldId('content_types[0].model_name'), 'order');
    await page.fill(fieldId('webhooks[0].url'), 'http://127.0.0.1:9/orders');
    await page.selectOption(fieldId('ordering'), 'per_instance');
    await page.getByRole('button', { name: 'Create trigger' }).click();
    await page.getByRole('heading', { name: /^Trigger shop\.order/ }).waitFor();
    const id = idOfHash(page)!;
    const stored = await getTrigger(id);
    expect(stored.body).toMatchObject({
      content_types: [{ app_label: 'shop', model_name: 'order' }],
      webhooks: [{ url: 'http://127.0.0.1:9/orders', http_method: 'POST' }],
      active: true,
      ordering: 'per_instance',
    });
    await page.getByText(/per instance: one instance's signals in the order accepted/).waitFor();
    expect(await page.getByRole('cell', { name: 'http://127.0.0.1:9/orders', exact: true }).count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('edits with If-Match: a concurrent change gives the 412 message, and Reload brings its version into the form', async () => {
    const created = (await (
      await fetch(apiUrl('/api/action-triggers'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(aTrigger({ msg_broker_queues: [] })),
      })
    ).json()) as TriggerJson;
    const page = await s.open(`/triggers/${created.id}/edit`);
    await page.getByRole('heading', { name: /^Edit trigger shop\.order/ }).waitFor();
    expect(await page.inputValue(fieldId('webhooks[0].headers#0.name'))).toBe('x-source');
    expect(JSON.parse(await page.inputValue(fieldId('payload')))).toEqual(created.payload);
    await page.fill(fieldId('webhooks[0].url'), 'https://hooks.example.com/mine');

    // Someone else saves first.
    const other = await fetch(apiUrl(`/api/action-triggers/${created.id}`), {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'if-match': '"1"' },
      body: JSON.stringify(aTrigger({ msg_broker_queues: [], content_types: [{ app_label: 'shop', model_name: 'invoice' }] })),
    });
    expect(other.status).toBe(200);

    await page.getByRole('button', { name: 'Save changes' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Someone else changed this trigger' });
    await alert.waitFor();
    expect((await getTrigger(created.id)).body.content_types[0]!.model_name).toBe('invoice');
    await alert.getByRole('button', { name: 'Reload the current version' }).click();
    await page.getByText('Version 2.').waitFor();
    expect(await page.inputValue(fieldId('content_types[0].model_name'))).toBe('invoice');
    expect(await page.inputValue(fieldId('webhooks[0].url'))).toBe('https://hooks.example.com/orders');

    // Three bad fields, a header's name among them: each error at its own field.
    await page.fill(fieldId('webhooks[0].url'), 'ftp://hooks.example.com/orders');
    await page.fill(fieldId('webhooks[0].timeout_secs'), '0');
    await page.fill(fieldId('webhooks[0].headers#0.name'), 'x source');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('.error-summary li').nth(2).waitFor();
    expect(await page.locator('.error-summary li').count()).toBe(3);
    for (const path of ['webhooks[0].url', 'webhooks[0].timeout_secs', 'webhooks[0].headers#0.name', 'webhooks[0].headers#0.value']) {
      expect(await page.getAttribute(fieldId(path), 'aria-invalid')).toBe('true');
    }
    expect(await describedBy(page, fieldId('webhooks[0].headers#0.name'))).toMatch(/header name/);
    expect(await describedBy(page, fieldId('webhooks[0].timeout_secs'))).toMatch(/greater than 0/);
    expect(await page.getAttribute(fieldId('content_types[0].model_name'), 'aria-invalid')).toBeNull();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'trigger-edit-errors');

    await page.fill(fieldId('webhooks[0].url'), 'https://hooks.example.com/orders');
    await page.fill(fieldId('webhooks[0].headers#0.name'), 'x-source');
    await page.fill(fieldId('webhooks[0].timeout_secs'), '7');
    await page.fill(fieldId('webhooks[0].signing_secret'), 'orders');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: /^Trigger shop\.invoice/ }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'trigger');
    const after = await getTrigger(created.id);
    expect(after.etag).toBe('"3"');
    expect(after.body.webhooks[0]).toEqual({
      url: 'https://hooks.example.com/orders',
      http_method: 'POST',
      headers: { 'x-source': 'shop' },
      timeout_secs: 7,
      signing_secret: 'orders',
    });
    expect(after.body.payload).toEqual(created.payload);
  });

  it('previews the rendered body for a sample instance, with dynamic values left as {{ path }}', async () => {
    const page = await s.open('/triggers/new');
    await page.getByRole('heading', { name: 'New trigger' }).waitFor();
    await page.fill(fieldId('content_types[0].app_label'), 'shop');
    await page.fill(fieldId('content_types[0].model_name'), 'order');
    await page.fill(fieldId('webhooks[0].url'), 'http://127.0.0.1:9/orders');
    await page.fill(fieldId('payload'), '{"order": "{{ instance.number }}", "token": "{{ secrets.token }}"}');
    await page.fill('#preview-instance', '{"id": 1, "number": "A-1042"}');
    const body = page.locator('#preview-output .preview-body');
    await body.filter({ hasText: 'A-1042' }).waitFor();
    const text = await body.textContent();
    expect(JSON.parse(text!)).toEqual({ order: 'A-1042', token: '{{ secrets.token }}' });

    // A payload that does not parse, then one the API refuses: said in the panel, not as page errors.
    await page.fill(fieldId('payload'), '{"order": ');
    await page.locator('#preview-output').filter({ hasText: 'payload: is not valid JSON' }).waitFor();
    await page.fill(fieldId('payload'), '{"x": "{{ secrets.other }}"}');
    await page.locator('#preview-output').filter({ hasText: 'not an allowed dynamic value' }).waitFor();
    await screenshot(page, 'trigger-new-preview');
  });

  it("covers repeated rows and broker queues: JSON that does not parse is named at its field, then the API's errors", async () => {
    const page = await s.open('/triggers/new');
    await page.getByRole('heading', { name: 'New trigger' }).waitFor();
    await page.fill(fieldId('content_types[0].app_label'), 'shop');
    await page.fill(fieldId('content_types[0].model_name'), 'order');
    await page.getByRole('button', { name: 'Add content type' }).click();
    expect(await page.evaluate('document.activeElement?.id')).toBe('f-content_types_1__app_label');
    await page.keyboard.type('shop');
    await page.fill(fieldId('content_types[1].model_name'), 'refund');
    await page.getByRole('button', { name: 'Remove webhook 1' }).click();
    await page.getByText('No webhooks.').waitFor();
    await page.getByRole('button', { name: 'Add broker queue' }).click();
    await page.fill(fieldId('msg_broker_queues[0].name'), 'orders');
    await page.fill(fieldId('msg_broker_queues[0].conn_details'), '{"url": ');
    await page.fill(fieldId('msg_broker_queues[0].parameters'), '{"queue": "orders-admin"}');
    await page.fill(fieldId('msg_broker_queues[0].timeout_secs'), '3');
    const create = page.getByRole('button', { name: 'Create trigger' });
    await create.click();
    await page.locator('.error-summary', { hasText: 'is not valid JSON' }).waitFor();
    expect(await page.getAttribute(fieldId('msg_broker_queues[0].conn_details'), 'aria-invalid')).toBe('true');

    // A key the broker does not let a trigger set: the API's path (…conn_details.url) lands on the JSON field.
    await page.fill(fieldId('msg_broker_queues[0].conn_details'), '{"url": "amqp://elsewhere:5672"}');
    await create.click();
    await page.locator('.error-summary', { hasText: 'msg_broker_queues[0].conn_details.url' }).waitFor();
    expect(await page.getAttribute(fieldId('msg_broker_queues[0].conn_details'), 'aria-invalid')).toBe('true');
    expect(await describedBy(page, fieldId('msg_broker_queues[0].conn_details'))).toMatch(/\S/);

    await page.fill(fieldId('msg_broker_queues[0].conn_details'), '');
    await page.locator('#preview-output h3', { hasText: 'Broker queue 1: orders (rabbitmq)' }).waitFor();
    await create.click();
    await page.getByRole('heading', { name: /^Trigger shop\.order, shop\.refund/ }).waitFor();
    const stored = await getTrigger(idOfHash(page)!);
    expect(stored.body).toMatchObject({
      content_types: [
        { app_label: 'shop', model_name: 'order' },
        { app_label: 'shop', model_name: 'refund' },
      ],
      webhooks: [],
      msg_broker_queues: [{ name: 'orders', parameters: { queue: 'orders-admin' }, timeout_secs: 3 }],
    });
    expect(await page.getByRole('cell', { name: 'queue: orders-admin' }).count()).toBe(1);
  });

  it('can be filled and submitted with the keyboard alone', async () => {
    const page = await s.open('/triggers/new');
    await page.getByRole('heading', { name: 'New trigger' }).waitFor();
    const tabTo = async (selector: string) => {
      for (let i = 0; i < 40; i++) {
        if (await page.evaluate(`document.activeElement === document.querySelector(${JSON.stringify(selector)})`)) return;
        await page.keyboard.press('Tab');
      }
      throw new Error(`Tab never reached ${selector}`);
    };
    await tabTo(fieldId('config_signals.post_delete'));
    await page.keyboard.press('Space');
    await tabTo(fieldId('content_types[0].app_label'));
    await page.keyboard.type('kb');
    await page.keyboard.press('Tab');
    await page.keyboard.type('thing');
    await tabTo(fieldId('webhooks[0].url'));
    await page.keyboard.type('http://127.0.0.1:9/kb');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: /^Trigger kb\.thing/ }).waitFor();
    const stored = await getTrigger(idOfHash(page)!);
    expect(stored.body.config_signals).toEqual([{ signal: 'post_save' }, { signal: 'post_delete' }]);
    expect(stored.body.webhooks[0]!.url).toBe('http://127.0.0.1:9/kb');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('asks before leaving a changed form: Stay keeps the edit, Leave goes; no question when unchanged or right after Save', async () => {
    const created = (await (
      await fetch(apiUrl('/api/action-triggers'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(aTrigger({ msg_broker_queues: [] })),
      })
    ).json()) as TriggerJson;
    const page = await s.open(`/triggers/${created.id}/edit`);
    const editHeading = page.getByRole('heading', { name: /^Edit trigger shop\.order/ });
    const mainNav = (name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });
    const leaveDialog = page.getByRole('dialog', { name: 'Leave without saving?' });
    await editHeading.waitFor();
    // Unchanged (typing a value and then its original back is no change): no question.
    await page.fill(fieldId('webhooks[0].url'), 'https://hooks.example.com/other');
    await page.fill(fieldId('webhooks[0].url'), created.webhooks[0]!.url);
    await mainNav('Signals').click();
    await page.getByRole('heading', { name: 'Signals' }).waitFor();
    expect(await leaveDialog.count()).toBe(0);

    await page.goBack();
    await editHeading.waitFor();
    await page.fill(fieldId('webhooks[0].url'), 'https://hooks.example.com/edited');
    await mainNav('Signals').click();
    await leaveDialog.waitFor();
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Stay');
    expect(await leaveDialog.textContent()).toContain('Your changes to this trigger are not saved');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'trigger-edit-leave');
    await leaveDialog.getByRole('button', { name: 'Stay' }).click();
    await leaveDialog.waitFor({ state: 'hidden' });
    expect(page.url()).toMatch(/\/edit$/);
    expect(await page.inputValue(fieldId('webhooks[0].url'))).toBe('https://hooks.example.com/edited');
    expect(await editHeading.count()).toBe(1);

    // A hash change by other means (back, a script) asks too, and Stay puts the address back.
    await page.evaluate("location.hash = '#/triggers'");
    await leaveDialog.waitFor();
    await page.keyboard.press('Escape');
    await leaveDialog.waitFor({ state: 'hidden' });
    expect(page.url()).toMatch(/\/edit$/);
    expect(await page.inputValue(fieldId('webhooks[0].url'))).toBe('https://hooks.example.com/edited');

    // Closing or reloading the tab: the browser's own question.
    const asked: string[] = [];
    page.once('dialog', (d) => {
      asked.push(d.type());
      void d.dismiss();
    });
    await page.close({ runBeforeUnload: true });
    await eventually(async () => (asked.length > 0 ? true : undefined), 5000, 'beforeunload asked');
    expect(asked).toEqual(['beforeunload']);
    expect(page.isClosed()).toBe(false);

    await mainNav('Signals').click();
    await leaveDialog.getByRole('button', { name: 'Leave' }).click();
    await page.getByRole('heading', { name: 'Signals' }).waitFor();
    expect(page.url()).toMatch(/#\/signals$/);
    expect((await getTrigger(created.id)).body.webhooks[0]!.url).toBe(created.webhooks[0]!.url);

    // Saved: the trigger's page follows with no question, and leaving it asks nothing either.
    await page.goBack();
    await editHeading.waitFor();
    await page.fill(fieldId('webhooks[0].url'), 'https://hooks.example.com/saved');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: /^Trigger shop\.order/ }).waitFor();
    expect(await leaveDialog.count()).toBe(0);
    expect((await getTrigger(created.id)).body.webhooks[0]!.url).toBe('https://hooks.example.com/saved');
    const closing = page.waitForEvent('close', { timeout: 5000 });
    await page.close({ runBeforeUnload: true });
    await closing;
    expect(page.isClosed()).toBe(true);
  });

  it('gives each webhook and queue an optional payload of its own: its errors at its field, previewed, saved, shown and loaded back', async () => {
    const page = await s.open('/triggers/new');
    await page.getByRole('heading', { name: 'New trigger' }).waitFor();
    await page.fill(fieldId('content_types[0].app_label'), 'shop');
    await page.fill(fieldId('content_types[0].model_name'), 'order');
    await page.fill(fieldId('webhooks[0].url'), 'http://127.0.0.1:9/own');
    await page.fill(fieldId('webhooks[0].payload'), '{"order": {"id": "{{ secrets.other }}"}}');
    await page.getByRole('button', { name: 'Add broker queue' }).click();
    await page.fill(fieldId('msg_broker_queues[0].name'), 'orders');
    await page.fill(fieldId('msg_broker_queues[0].payload'), '"order {{ instance.number }}');
    await page.fill(fieldId('payload'), '{"shared": "{{ instance.id }}"}');
    const create = page.getByRole('button', { name: 'Create trigger' });
    await create.click();
    await page.locator('.error-summary', { hasText: 'is not valid JSON' }).waitFor();
    expect(await page.getAttribute(fieldId('msg_broker_queues[0].payload'), 'aria-invalid')).toBe('true');

    // The API's path inside the entry's payload (webhooks[0].payload.order.id) lands on its editor.
    await page.fill(fieldId('msg_broker_queues[0].payload'), '"order {{ instance.number }}"');
    await create.click();
    await page.locator('.error-summary', { hasText: 'webhooks[0].payload.order.id' }).waitFor();
    expect(await page.getAttribute(fieldId('webhooks[0].payload'), 'aria-invalid')).toBe('true');
    expect(await describedBy(page, fieldId('webhooks[0].payload'))).toMatch(/not an allowed dynamic value/);

    await page.fill(fieldId('webhooks[0].payload'), '{"order": {"id": "{{ instance.id }}", "token": "{{ secrets.token }}"}}');
    await page.fill('#preview-instance', '{"id": 7, "number": "A-7"}');
    const bodies = page.locator('#preview-output .preview-body');
    await bodies.filter({ hasText: 'order A-7' }).waitFor();
    expect(JSON.parse((await bodies.nth(0).textContent())!)).toEqual({ order: { id: 7, token: '{{ secrets.token }}' } });
    await create.click();
    await page.getByRole('heading', { name: /^Trigger shop\.order/ }).waitFor();
    const id = idOfHash(page)!;
    const stored = (await getTrigger(id)).body;
    expect(stored.webhooks[0]).toMatchObject({ payload: { order: { id: '{{ instance.id }}', token: '{{ secrets.token }}' } } });
    expect(stored.msg_broker_queues[0]).toEqual({ name: 'orders', payload: 'order {{ instance.number }}' });
    expect(await page.getByRole('cell', { name: '"order {{ instance.number }}"' }).count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);

    // Loaded back into the editors; a queue's payload cleared sends the trigger's again.
    await page.getByRole('navigation', { name: 'This trigger' }).getByRole('link', { name: 'Edit', exact: true }).click();
    await page.getByRole('heading', { name: /^Edit trigger shop\.order/ }).waitFor();
    expect(JSON.parse(await page.inputValue(fieldId('webhooks[0].payload')))).toEqual(stored.webhooks[0]!.payload);
    await page.fill(fieldId('msg_broker_queues[0].payload'), '');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: /^Trigger shop\.order/ }).waitFor();
    expect((await getTrigger(id)).body.msg_broker_queues[0]).toEqual({ name: 'orders' });
    expect(await page.getByRole('cell', { name: "the trigger's" }).count()).toBe(1);
  });

  it('shows no console error, page error or 5xx in the whole file', () => {
    s.expectClean();
  });
});
