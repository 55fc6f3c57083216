import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, BrowserContext, chromium, Page } from 'playwright-core';
import { startServerProcess, stopServerProcess, ServerProcess } from '../../support/server-process';
import { testServers } from '../../support/servers';
import { tempDir } from '../../support/test-app';

/**
 * A real service (its own process, data dir and task queue, on the shared Temporal dev server)
 * and a real Chromium (Debian's `chromium`, installed by scripts/install-tools.sh; nothing is
 * downloaded) driven by playwright-core. Every page opened through `open` is watched: a console
 * error, an uncaught page error or a 5xx answer fails `expectClean`.
 */
export interface AdminSession {
  url: string;
  server: ServerProcess;
  browser: Browser;
  context: BrowserContext;
  /** A new page at `/admin/#<hash>`, watched. */
  open: (hash?: string) => Promise<Page>;
  /** Fails if any watched page logged an error, threw, or got a 5xx, during the session. */
  expectClean: () => void;
  stop: () => Promise<void>;
}

const ROOT = join(__dirname, '..', '..', '..');
export const SCREENSHOTS = join(ROOT, 'test-output', 'screenshots');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const CLIENT_ERROR_LOG = /^Failed to load resource: the server responded with a status of 4\d\d\b/;

export interface SessionOptions {
  /** The service's config file (api_keys, webhook_url_patterns, …). */
  config?: Record<string, unknown>;
  env?: Record<string, string>;
}

export const startAdminSession = async (options: SessionOptions = {}): Promise<AdminSession> => {
  const dir = tempDir('at-admin-');
  const configPath = join(dir, 'config.json');
  writeFileSync(configPath, JSON.stringify({ allow_private_targets: true, ...options.config }));
  const servers = testServers();
  const server = await startServerProcess(
    {
      DATA_DIR: join(dir, 'data'),
      ACTION_TRIGGERS_CONFIG: configPath,
      TEMPORAL_ADDRESS: servers.temporalAddress,
      TEMPORAL_TASK_QUEUE: `admin-${process.pid}-${Date.now()}`,
      WORKFLOW_BUNDLE_PATH: servers.workflowBundlePath,
      ...options.env,
    },
    60_000,
  );
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const problems: string[] = [];
  const open = async (hash = '/triggers') => {
    const page = await context.newPage();
    page.on('console', (m) => {
      // Chromium logs every 4xx answer as an error; the pages expect and show those (a 400's field
      // errors, a 412, a 404). 5xx answers are caught below, from the responses themselves.
      if (m.type() === 'error' && !CLIENT_ERROR_LOG.test(m.text())) problems.push(`console error on ${page.url()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error on ${page.url()}: ${e.message}`));
    page.on('response', (r) => {
      if (r.status() >= 500) problems.push(`${r.status()} for ${r.request().method()} ${r.url()}`);
    });
    await page.goto(`${server.url}/admin/#${hash}`);
    return page;
  };
  return {
    url: server.url,
    server,
    browser,
    context,
    open,
    expectClean: () => expect(problems).toEqual([]),
    stop: async () => {
      await browser.close().catch(() => undefined);
      await stopServerProcess(server);
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** Serious and critical axe-core violations on the page as it is now (axe runs inside the page). */
export const seriousViolations = async (page: Page) => {
  // Evaluated through the DevTools protocol: the page's CSP (no inline script) stays as served.
  await page.evaluate(AXE_SOURCE);
  const result = (await page.evaluate('axe.run()')) as {
    violations: Array<{ id: string; impact: string; help: string; nodes: Array<{ target: unknown }> }>;
  };
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${JSON.stringify(v.nodes.map((n) => n.target))}`);
};

/** A full-page screenshot into test-output/screenshots (kept out of git), named for the page. */
export const screenshot = async (page: Page, name: string) => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
};
