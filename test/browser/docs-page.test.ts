import { AdminSession, startAdminSession } from './support/admin-session';

/** /docs renders the OpenAPI document offline: each operation with its parameters, its request body's schema, its responses. */
jest.setTimeout(120_000);

let s: AdminSession;
beforeAll(async () => {
  s = await startAdminSession();
});
afterAll(async () => {
  await s?.stop();
});

test('an operation that takes a body shows it, with its schema, beside the operation', async () => {
  const page = await s.context.newPage();
  await page.goto(`${s.url}/docs`);
  const create = page.locator('.op', { hasText: 'POST/api/action-triggers —' }).first();
  await create.locator('details.body summary').click();
  const body = await create.locator('details.body').innerText();
  expect(body).toMatch(/Request body: application\/json/);
  expect(body).toContain('"config_signals"');
  expect(body).toContain('"webhooks"');
  const signals = page.locator('.op', { hasText: 'POST/api/signals —' }).first();
  expect(await signals.locator('details.body').count()).toBeGreaterThan(0);
  // An operation without a body shows none.
  expect(await page.locator('.op', { hasText: 'GET/healthz' }).locator('details.body').count()).toBe(0);
  s.expectClean();
});
