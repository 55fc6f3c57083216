import type { Page } from 'playwright-core';

/** What the admin's pages are made of, as the browser tests find them. */

/** The element id web/admin/lib/dom.js's `fieldId` gives a field path, as a selector. */
export const fieldId = (path: string) => `#f-${path.replace(/[^A-Za-z0-9_-]/g, '_')}`;

/** The text an input's aria-describedby points at. */
export const describedBy = async (page: Page, selector: string) => {
  const ids = (await page.getAttribute(selector, 'aria-describedby'))?.split(' ') ?? [];
  return (await Promise.all(ids.map((id) => page.locator(`[id="${id}"]`).textContent()))).join(' | ');
};

/** Each field path's input is marked invalid and described (its error text at the field). */
export const expectInvalidAtFields = async (page: Page, paths: readonly string[]) => {
  for (const path of paths) {
    expect(await page.getAttribute(fieldId(path), 'aria-invalid')).toBe('true');
    expect(await describedBy(page, fieldId(path))).toMatch(/\S/);
  }
};

/** The signal page shows one action, delivered at its first attempt with status 200. */
export const expectOneDeliveredAction = async (page: Page) => {
  const row = page.locator('.signal-view table.actions-table tbody tr');
  expect(await row.count()).toBe(1);
  expect(await row.locator('.state').textContent()).toBe('delivered');
  expect(await row.locator('.attempts').textContent()).toBe('1');
  expect(await row.locator('.status-code').textContent()).toBe('200');
};

/** The value of one fact in a page's `dl.facts` (State, Outcome, …). */
export const fact = (page: Page, term: string) => page.locator(`dl.facts dt:text-is("${term}") + dd`);

/** A link in the trigger's own navigation (Definition, History, Dispatches, …). */
export const triggerLink = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'This trigger' }).getByRole('link', { name, exact: true });

/** The history timeline's rows, their first `columns` cells (version, event, actor, request id). */
export const timelineRows = (page: Page, columns: number) =>
  page
    .locator('table.history > tbody > tr:not(.change)')
    .evaluateAll((rows, n) => rows.map((r) => [...r.children].slice(0, n).map((c) => c.textContent?.trim())), columns);
