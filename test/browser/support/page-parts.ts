import type { Page } from 'playwright-core';

/** What the admin's pages are made of, as the browser tests find them. */

/** The element id web/admin/dom.js's `fieldId` gives a field path, as a selector. */
export const fieldId = (path: string) => `#f-${path.replace(/[^A-Za-z0-9_-]/g, '_')}`;

/** The text an input's aria-describedby points at. */
export const describedBy = async (page: Page, selector: string) => {
  const ids = (await page.getAttribute(selector, 'aria-describedby'))?.split(' ') ?? [];
  return (await Promise.all(ids.map((id) => page.locator(`[id="${id}"]`).textContent()))).join(' | ');
};

/** The value of one fact in a page's `dl.facts` (State, Outcome, …). */
export const fact = (page: Page, term: string) => page.locator(`dl.facts dt:text-is("${term}") + dd`);

/** A link in the trigger's own navigation (Definition, History, Dispatches, …). */
export const triggerLink = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'This trigger' }).getByRole('link', { name, exact: true });

/** The history timeline's rows, their first `columns` cells (version, event, actor, request id). */
export const timelineRows = (page: Page, columns: number) => page.locator('table.history > tbody > tr:not(.change)')
  .evaluateAll((rows, n) => rows.map((r) => [...r.children].slice(0, n).map((c) => c.textContent?.trim())), columns);
