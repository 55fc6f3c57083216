import { AdminSession, seriousViolations, startAdminSession } from './support/admin-session';

/** The admin shell: served by the API itself, locally, with a strict CSP, and its key prompt. */
jest.setTimeout(120_000);

describe('admin shell, open loopback mode', () => {
  let s: AdminSession;
  beforeAll(async () => {
    s = await startAdminSession();
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('serves /admin/ from the API with a CSP that allows nothing from elsewhere', async () => {
    const res = await fetch(`${s.url}/admin/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await res.text()).toContain('<script type="module" src="./app.js">');
    expect((await fetch(`${s.url}/admin`, { redirect: 'manual' })).status).toBe(301);
    expect((await fetch(`${s.url}/admin/no-such.js`)).status).toBe(404);
    expect((await fetch(`${s.url}/admin/../package.json`)).status).toBe(404);
    expect((await fetch(`${s.url}/admin/%2e%2e/package.json`)).status).toBe(404);
    expect((await fetch(`${s.url}/admin/`, { method: 'POST' })).status).toBe(405);
    expect(await (await fetch(`${s.url}/admin/config.json`)).json()).toEqual({
      temporal_ui_url: 'http://127.0.0.1:8233',
      namespace: 'default',
      keys_required: false,
    });
  });

  it('loads every asset from this origin only, and the keyboard reaches the navigation', async () => {
    const page = await s.open('/no-such-page');
    const origins = new Set<string>();
    page.on('request', (r) => origins.add(new URL(r.url()).origin));
    await page.reload();
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    expect([...origins]).toEqual([s.url]);
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Skip to content');
    expect(await seriousViolations(page)).toEqual([]);
    s.expectClean();
  });
});
