import type { Page } from 'playwright-core';
import { triggerBody } from '../support/trigger-body';
import { apiCaller } from './support/api-calls';
import { AdminSession, screenshot, seriousViolations, startAdminSession } from './support/admin-session';
import { timelineRows } from './support/page-parts';

/** A trigger's history page: its events with who and which request, and a diff per version, also once deleted. */
jest.setTimeout(120_000);

let s: AdminSession;
beforeAll(async () => {
  s = await startAdminSession();
});
afterAll(async () => {
  await s?.stop();
});

const call = (method: string, path: string, requestId: string, body?: unknown) =>
  apiCaller(s.url)(method, path, body, { 'X-Request-Id': requestId });

const definition = (url: string) =>
  triggerBody({ webhooks: [{ url, http_method: 'POST', headers: { 'X-Team': 'orders' } }], payload: { order: '{{ instance.id }}' } });

/** The rows of the timeline: version, event, actor, request id (the time varies). */
const timeline = (page: Page) => timelineRows(page, 4);

describe('trigger history', () => {
  let id: string;

  it('shows each event with its version, actor and request id, and the changed lines of each version as −/+', async () => {
    id = (await call('POST', '/api/action-triggers', 'hist-create', definition('http://127.0.0.1:9/old-hook'))).id as string;
    await call('PUT', `/api/action-triggers/${id}`, 'hist-put', definition('http://127.0.0.1:9/new-hook'));
    await call('PATCH', `/api/action-triggers/${id}`, 'hist-patch', {
      active: false,
      content_types: [{ app_label: 'shop', model_name: 'invoice' }],
    });

    const page = await s.open(`/triggers/${id}/history`);
    await page.getByRole('heading', { name: `History of trigger ${id}` }).waitFor();
    const actor = (await apiCaller(s.url)<Array<{ metadata: { actor: string } }>>('GET', `/api/action-triggers/${id}/history`))[0]!.metadata
      .actor;
    expect(await timeline(page)).toEqual([
      ['1', 'Created', actor, 'hist-create'],
      ['2', 'Updated', actor, 'hist-put'],
      ['3', 'Updated', actor, 'hist-patch'],
    ]);
    const diffs = page.locator('.diff');
    expect(await diffs.count()).toBe(2);
    // Version 1 → 2: only the URL line changed; the marker is text, not only colour.
    expect(await diffs.nth(0).locator('del').allTextContents()).toEqual(['−       "url": "http://127.0.0.1:9/old-hook"']);
    expect(await diffs.nth(0).locator('ins').allTextContents()).toEqual(['+       "url": "http://127.0.0.1:9/new-hook"']);
    expect(await diffs.nth(0).getByText('1 line removed, 1 added').count()).toBe(1);
    // Version 2 → 3 (a merge patch): active and the model name.
    expect(await diffs.nth(1).locator('del').allTextContents()).toEqual(['−   "active": true,', '−       "model_name": "order"']);
    expect(await diffs.nth(1).locator('ins').allTextContents()).toEqual(['+   "active": false,', '+       "model_name": "invoice"']);
    expect(await diffs.nth(0).getAttribute('aria-label')).toBe('Changes from version 1 to version 2');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'trigger-history-diff');
  });

  it('is usable by keyboard: from the heading, Tab reaches the trigger links and opens the first definition', async () => {
    const page = await s.open(`/triggers/${id}/history`);
    await page.getByRole('heading', { name: `History of trigger ${id}` }).waitFor();
    expect(await page.evaluate('document.activeElement?.textContent')).toBe(`History of trigger ${id}`);
    const focused: string[] = [];
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press('Tab');
      focused.push((await page.evaluate('document.activeElement?.textContent')) as string);
    }
    expect(focused).toEqual(['Definition', 'History', 'Dispatches', 'Send a test signal', 'Definition at version 1']);
    await page.keyboard.press('Enter');
    await page.locator('details[open] pre.json').waitFor();
    expect(await page.locator('details[open] pre.json').textContent()).toContain('"url": "http://127.0.0.1:9/old-hook"');
  });

  it('still shows the history of a deleted trigger, with the deletion', async () => {
    await call('DELETE', `/api/action-triggers/${id}`, 'hist-delete');
    expect((await fetch(`${s.url}/api/action-triggers/${id}`)).status).toBe(404);
    const page = await s.open(`/triggers/${id}/history`);
    await page.getByRole('heading', { name: `History of trigger ${id}` }).waitFor();
    expect((await timeline(page)).map((r) => r.slice(0, 2))).toEqual([
      ['1', 'Created'],
      ['2', 'Updated'],
      ['3', 'Updated'],
      ['4', 'Deleted'],
    ]);
    expect((await timeline(page))[3]![3]).toBe('hist-delete');
    expect(await page.locator('.notice').textContent()).toContain('This trigger is deleted (version 4');
    expect(await page.getByText('The trigger was deleted; its history and dispatches are kept.').count()).toBe(1);
    // Only the pages a deleted trigger has.
    expect(await page.getByRole('navigation', { name: 'This trigger' }).getByRole('link').allTextContents()).toEqual([
      'History',
      'Dispatches',
    ]);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('shows the first 100 versions; "Later versions" adds 101..120, and version 101 is diffed against version 100', async () => {
    const long = (await call('POST', '/api/action-triggers', 'long-1', { ...definition('http://127.0.0.1:9/long'), payload: { n: 1 } }))
      .id as string;
    for (let n = 2; n <= 120; n++) await call('PATCH', `/api/action-triggers/${long}`, `long-${n}`, { payload: { n } });
    const page = await s.open(`/triggers/${long}/history`);
    await page.getByRole('heading', { name: `History of trigger ${long}` }).waitFor();
    const versions = async () => (await timeline(page)).map((r) => Number(r[0]));
    const upTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
    expect(await versions()).toEqual(upTo(100));
    expect(await page.locator('table.history caption').textContent()).toBe(
      '100 events, oldest first; below each, what it changed. Later versions follow.',
    );
    await page.getByRole('button', { name: 'Later versions' }).click();
    await page.locator('tr#v120').waitFor();
    expect(await versions()).toEqual(upTo(120));
    expect(await page.getByRole('button', { name: 'Later versions' }).count()).toBe(0);
    // Across the pages' boundary: 100 → 101, not "the whole definition" as for a first event.
    const diff = page.getByRole('group', { name: 'Changes from version 100 to version 101' });
    expect(await diff.locator('del').allTextContents()).toEqual(['−     "n": 100']);
    expect(await diff.locator('ins').allTextContents()).toEqual(['+     "n": 101']);
    expect(await page.locator('details > summary').allTextContents()).toEqual(['Definition at version 1']);
    expect((await timeline(page))[100]).toEqual(['101', 'Updated', expect.any(String), 'long-101']);
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('101');
    expect(await seriousViolations(page)).toEqual([]);

    // Deleted, its deletion on the second page: the first page says so already, the second adds when.
    await call('DELETE', `/api/action-triggers/${long}`, 'long-delete');
    const gone = await s.open(`/triggers/${long}/history`);
    await gone.getByRole('heading', { name: `History of trigger ${long}` }).waitFor();
    expect(await gone.locator('.notice').textContent()).toBe(
      'This trigger is deleted; the deletion is among the later versions. Its history stays.',
    );
    expect(await gone.getByRole('navigation', { name: 'This trigger' }).getByRole('link').allTextContents()).toEqual([
      'History',
      'Dispatches',
    ]);
    await gone.getByRole('button', { name: 'Later versions' }).click();
    await gone.locator('tr#v121').waitFor();
    expect(await gone.locator('.notice').textContent()).toContain('This trigger is deleted (version 121');
  });

  it('diffs in the page itself: a large pair falls back to before/after, within bounds', async () => {
    const page = await s.open(`/triggers/${id}/history`);
    await page.getByRole('heading', { name: `History of trigger ${id}` }).waitFor();
    const result = (await page.evaluate(`import('./lib/diff.js').then((d) => {
      const big = (k) => Array.from({ length: 2000 }, (_, i) => 'line ' + i + ' ' + k);
      const started = performance.now();
      const large = d.diffLines(big('a'), big('b'));
      const small = d.diffLines(['a', 'b', 'c', 'd'], ['a', 'c', 'd', 'e']);
      return { ms: performance.now() - started, bounded: large.bounded, count: large.lines.length, small: small.lines.map((l) => l.op + l.text),
        stable: d.stableStringify({ b: 1, a: { d: [1, { f: 1, e: 2 }], c: null } }) === d.stableStringify({ a: { c: null, d: [1, { e: 2, f: 1 }] }, b: 1 }) };
    })`)) as { ms: number; bounded: boolean; count: number; small: string[]; stable: boolean };
    expect(result).toMatchObject({ bounded: false, count: 4000, small: ['=a', '-b', '=c', '=d', '+e'], stable: true });
    expect(result.ms).toBeLessThan(1000);
    s.expectClean();
  });
});
