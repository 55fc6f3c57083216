import { rmSync } from 'node:fs';
import { aTrigger, tempDir } from '../../support/test-app';
import { startServerProcess, stopServerProcess } from '../../support/server-process';
import { testServers } from '../../support/servers';

const json = { 'content-type': 'application/json' };
type Body = { id: string; type: string };
const fetchJson = async <T = Body>(url: string, init?: RequestInit) => (await fetch(url, init)).json() as Promise<T>;

test('every trigger and its history survive a graceful stop and a SIGKILL of the server process', async () => {
  const dir = tempDir();
  try {
    const env = { DATA_DIR: dir, WORKFLOW_BUNDLE_PATH: testServers().workflowBundlePath };
    let server = await startServerProcess(env);
    const created = await fetchJson(`${server.url}/api/action-triggers`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify(aTrigger({ msg_broker_queues: [] })),
    });
    const patched = await fetch(`${server.url}/api/action-triggers/${created.id}`, {
      method: 'PATCH',
      headers: json,
      body: JSON.stringify({ active: false }),
    });
    expect(patched.status).toBe(200);
    expect(await stopServerProcess(server, 'SIGTERM')).toBe(0);

    server = await startServerProcess(env);
    const afterGraceful = await fetchJson(`${server.url}/api/action-triggers/${created.id}`);
    expect(afterGraceful).toMatchObject({ id: created.id, active: false, version: 2 });
    const second = await fetchJson(`${server.url}/api/action-triggers`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify(aTrigger({ msg_broker_queues: [] })),
    });
    await stopServerProcess(server, 'SIGKILL');

    server = await startServerProcess(env);
    const list = await fetchJson<Body[]>(`${server.url}/api/action-triggers`);
    expect(list.map((x) => x.id)).toEqual([created.id, second.id]);
    const history = await fetchJson<Body[]>(`${server.url}/api/action-triggers/${created.id}/history`);
    expect(history.map((e) => e.type)).toEqual(['TriggerCreated', 'TriggerDeactivated']);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    await stopServerProcess(server);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 90000);

test('a bad config file stops the start with errors naming each key', async () => {
  const dir = tempDir();
  const { writeFileSync } = await import('node:fs');
  writeFileSync(`${dir}/config.json`, JSON.stringify({ brokers: { q: { broker_type: 'zeromq' } }, limits: { max_body_bytes: 'big' } }));
  await expect(startServerProcess({ DATA_DIR: dir, ACTION_TRIGGERS_CONFIG: `${dir}/config.json` })).rejects.toThrow(
    /brokers\.q\.broker_type[\s\S]*limits\.max_body_bytes|limits\.max_body_bytes[\s\S]*brokers\.q\.broker_type/,
  );
  rmSync(dir, { recursive: true, force: true });
}, 30000);
