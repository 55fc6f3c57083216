import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { request as httpRequest } from 'node:http';
import { aTrigger, tempDir } from '../../support/test-app';
import { startServerProcess, stopServerProcess, ServerProcess } from '../../support/server-process';

/** One request on a connection of its own, so the cluster may hand each to a different process. */
const fresh = (url: string, method = 'GET', body?: unknown) =>
  new Promise<{ status: number; etag?: string; body: string }>((resolve, reject) => {
    const req = httpRequest(
      url,
      { method, agent: false, headers: body === undefined ? {} : { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, etag: res.headers.etag, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });

const listeningPids = (server: ServerProcess) =>
  [...server.output().matchAll(/"msg":"action-triggers API listening".*?"pid":(\d+)/g)].map((m) => Number(m[1]));

const waitUntil = async (check: () => boolean, timeoutMs = 30_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
};

/** The API role with two processes on `dir`, once both listen, and their pids. */
const startTwo = async (dir: string) => {
  const server = await startServerProcess({ DATA_DIR: dir, API_PROCESSES: '2' }, 60_000, ['--role=api']);
  await waitUntil(() => listeningPids(server).length === 2);
  const [first, second] = listeningPids(server);
  return [server, first, second] as const;
};

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('API_PROCESSES=2: two processes share the port and the data; a write is read back through either; a dead one is replaced', async () => {
  const dir = tempDir();
  let server: ServerProcess | undefined;
  try {
    const [started, first, second] = await startTwo(dir);
    server = started;
    expect(first).not.toBe(second);

    const created = await fresh(`${server.url}/api/action-triggers`, 'POST', aTrigger({ msg_broker_queues: [] }));
    expect(created.status).toBe(201);
    const id = (JSON.parse(created.body) as { id: string }).id;
    const reads = await Promise.all(Array.from({ length: 20 }, () => fresh(`${server!.url}/api/action-triggers/${id}`)));
    expect(reads.map((r) => [r.status, r.etag])).toEqual(Array.from({ length: 20 }, () => [200, '"1"']));
    expect((await fresh(`${server.url}/api/action-triggers/${id}`, 'PATCH', { active: false })).status).toBe(200);
    const after = await Promise.all(Array.from({ length: 20 }, () => fresh(`${server!.url}/api/action-triggers/${id}`)));
    expect(after.map((r) => [r.status, r.etag, (JSON.parse(r.body) as { active: boolean }).active])).toEqual(
      Array.from({ length: 20 }, () => [200, '"2"', false]),
    );

    process.kill(first!, 'SIGKILL');
    await waitUntil(() => listeningPids(server!).length === 3);
    expect(server.output()).toContain('an API process died; starting another');
    const replacement = listeningPids(server)[2]!;
    const again = await Promise.all(Array.from({ length: 10 }, () => fresh(`${server!.url}/api/action-triggers/${id}`)));
    expect(again.map((r) => r.status)).toEqual(Array.from({ length: 10 }, () => 200));

    expect(await stopServerProcess(server, 'SIGTERM')).toBe(0);
    expect([second, replacement].filter((pid) => alive(pid!))).toEqual([]);
    server = undefined;
  } finally {
    if (server) await stopServerProcess(server, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);

test('API_PROCESSES=2: a replacement that cannot start stops the others, and the primary exits', async () => {
  const dir = tempDir();
  let server: ServerProcess | undefined;
  try {
    const [started, first, second] = await startTwo(dir);
    server = started;
    // The running processes keep their open files; a new one finds a directory where the store was.
    renameSync(join(dir, 'events.sqlite'), join(dir, 'events.sqlite.moved'));
    mkdirSync(join(dir, 'events.sqlite'));
    const exited = new Promise<number | null>((resolve) => {
      server!.child.removeAllListeners('exit');
      server!.child.once('exit', resolve);
    });
    process.kill(first!, 'SIGKILL');
    await waitUntil(() => server!.output().includes('an API process failed to start'));
    expect(await Promise.race([exited, new Promise((r) => setTimeout(() => r('still running'), 15_000))])).toBe(1);
    expect(alive(second!)).toBe(false);
    server = undefined;
  } finally {
    if (server) await stopServerProcess(server, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);

test('API_PROCESSES must be 1..64, and more than 1 only for the API role', async () => {
  const dir = tempDir();
  try {
    await expect(startServerProcess({ DATA_DIR: dir, API_PROCESSES: '0' }, 30_000, ['--role=api'])).rejects.toThrow(
      /env\.API_PROCESSES: must be a whole number from 1 to 64/,
    );
    await expect(startServerProcess({ DATA_DIR: dir, API_PROCESSES: '2' })).rejects.toThrow(
      /env\.API_PROCESSES: more than 1 needs --role=api/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
