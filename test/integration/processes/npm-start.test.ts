import { writeFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { TEST_RETRY } from '../../support/dispatch-harness';
import { freePort } from '../../support/free-port';
import { startReceiver } from '../../support/receiver';
import { startServerProcess, stopServerProcess } from '../../support/server-process';
import { tempDir } from '../../support/test-app';
import { triggerBody } from '../../support/trigger-body';

const json = { 'content-type': 'application/json' };

/** What `npm start` does on a fresh machine: the build runs, and with no TEMPORAL_ADDRESS it runs its own Temporal. */
test('one process starts its own Temporal (state under DATA_DIR, UI on its port), dispatches, and keeps it all across a restart', async () => {
  const dir = tempDir();
  const rx = await startReceiver();
  const configFile = join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify({ retry: TEST_RETRY, allow_private_targets: true }));
  const env = {
    DATA_DIR: dir,
    ACTION_TRIGGERS_CONFIG: configFile,
    TEMPORAL_ADDRESS: '',
    TEMPORAL_DEV_SERVER_PORT: String(await freePort()),
    TEMPORAL_UI_PORT: String(await freePort()),
  };
  let server = await startServerProcess(env, 90_000);
  try {
    const trigger = (await (
      await fetch(`${server.url}/api/action-triggers`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify(triggerBody({ webhooks: [{ url: rx.url('/hook'), http_method: 'POST' }] })),
      })
    ).json()) as { id: string };
    const accepted = (await (
      await fetch(`${server.url}/api/signals`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ signal: 'post_save', app_label: 'shop', model_name: 'order', instance: { id: 1 } }),
      })
    ).json()) as { id: string };
    await rx.waitFor(() => rx.on('/hook').length === 1);
    expect(existsSync(join(dir, 'temporal.sqlite'))).toBe(true);
    expect((await fetch(`http://127.0.0.1:${env.TEMPORAL_UI_PORT}/`)).status).toBe(200);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    // What runs is the build: compiled JavaScript with no TypeScript loader, the admin's files and
    // the API's documentation served from it.
    const cmdline = readFileSync(`/proc/${server.child.pid}/cmdline`, 'utf8').split('\0');
    expect(cmdline).toContain(join(__dirname, '../../../dist/src/main.js'));
    expect(cmdline.join(' ')).not.toMatch(/ts-node|tsx|swc/);
    const admin = await fetch(`${server.url}/admin/`);
    expect([admin.status, admin.headers.get('content-type')]).toEqual([200, expect.stringContaining('text/html')]);
    expect((await fetch(`${server.url}/admin/app.js`)).status).toBe(200);
    expect((await fetch(`${server.url}/docs`)).status).toBe(200);
    // Its worker loads the workflow bundle the build made; it bundles nothing at start.
    expect(server.output()).toContain(
      `"msg":"workflow code: the build's bundle","path":"${join(__dirname, '../../../dist/workflow-bundle.js')}"`,
    );
    expect(server.output()).not.toContain('workflow code: bundling it now');
    await stopServerProcess(server, 'SIGTERM');

    server = await startServerProcess(env, 90_000);
    const status = (await (await fetch(`${server.url}/api/signals/${accepted.id}`)).json()) as {
      state: string;
      triggers: Array<{ trigger_id: string }>;
    };
    expect(status).toMatchObject({ state: 'completed', triggers: [{ trigger_id: trigger.id, version: 1 }] });
    expect((await fetch(`${server.url}/api/action-triggers/${trigger.id}`)).status).toBe(200);
  } finally {
    await stopServerProcess(server, 'SIGTERM');
    await rx.close();
    rmSync(dir, { recursive: true, force: true });
  }
}, 180_000);
