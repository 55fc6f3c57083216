import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DevServer } from '../../src/temporal/dev-server';
import { freePort } from '../support/free-port';
import { Receiver, startReceiver } from '../support/receiver';
import { startTestTemporal } from '../support/temporal-dev-server';
import { triggerBody } from '../support/trigger-body';
import { buildImage, eventually, IMAGE, podman } from './podman';

/**
 * The container image, built from the Dockerfile with podman and started as an operator would:
 * what it holds, that it needs no network to start, and that its two roles deliver a webhook.
 */
jest.setTimeout(20 * 60_000);

const containers: string[] = [];
const started = async (args: string[]) => {
  const id = (await podman(['run', '-d', ...args])).trim();
  containers.push(id);
  return id;
};
/** GET inside the container (it may have no network the test can reach). */
const statusInside = async (id: string, path: string) => Number((await podman(['exec', id, 'node', '-e',
  `fetch('http://127.0.0.1:8080${path}').then((r) => console.log(r.status), () => console.log(0))`])).trim());

beforeAll(buildImage);
afterAll(async () => {
  if (containers.length > 0) await podman(['rm', '-f', ...containers]).catch(() => undefined);
});

test('the image runs as a non-root user and holds compiled JavaScript and production dependencies only', async () => {
  const [inspected] = JSON.parse(await podman(['image', 'inspect', IMAGE])) as
    Array<{ Config: { User: string; Entrypoint: string[] }; Healthcheck?: { Test: string[] } }>;
  expect(inspected!.Config.User).toBe('node');
  expect(inspected!.Config.Entrypoint).toEqual(['node', '--max-old-space-size=1024', 'dist/src/main.js']);
  expect(inspected!.Healthcheck?.Test.join(' ')).toContain('/healthz');
  const listing = await podman(['run', '--rm', '--network=none', '--entrypoint', 'sh', IMAGE, '-c',
    'id -u; ls /app; ls /app/node_modules; echo "ts files:"; find /app -name "*.ts" ! -name "*.d.ts" -not -path "/app/node_modules/*"']);
  const [uid, ...rest] = listing.trim().split('\n');
  expect(uid).toBe('1000');
  expect(rest).toEqual(expect.arrayContaining(['dist', 'web', 'node_modules', 'package.json']));
  for (const devOnly of ['ts-node', 'typescript', 'jest', '@swc/jest', 'eslint', 'autocannon']) expect(rest).not.toContain(devOnly);
  expect(listing.trim().endsWith('ts files:')).toBe(true);
});

test('with no network at all it starts, passes its own HEALTHCHECK and serves /admin/ and /docs', async () => {
  const id = await started(['--network=none', '-e', 'TEMPORAL_ADDRESS=127.0.0.1:7233', IMAGE]);
  await eventually(async () => (await podman(['healthcheck', 'run', id]).then(() => true, () => false)), 60_000, 'the HEALTHCHECK passes');
  expect(await statusInside(id, '/healthz')).toBe(200);
  expect(await statusInside(id, '/admin/')).toBe(200);
  expect(await statusInside(id, '/docs')).toBe(200);
  // No TypeScript loader: the process is the compiled entry point.
  expect((await podman(['top', id, 'args'])).trim().split('\n').slice(1)).toEqual(['node --max-old-space-size=1024 dist/src/main.js --role=api']);
  // Its memory allocator is jemalloc, with the background thread that returns freed pages while idle.
  expect(Number(await podman(['exec', id, 'sh', '-c', 'grep -c libjemalloc /proc/1/maps']))).toBeGreaterThan(0);
  expect(Number(await podman(['exec', id, 'sh', '-c', 'cat /proc/1/task/*/comm | grep -c jemalloc_bg_thd']))).toBeGreaterThan(0);
});

describe('the API and worker roles, each in a container of the image', () => {
  let temporal: DevServer;
  let rx: Receiver;
  let dir: string;
  let apiUrl: string;

  beforeAll(async () => {
    temporal = await startTestTemporal();
    const apiPort = await freePort();
    rx = await startReceiver();
    // One data folder for both (the embedded store is one SQLite file), writable by the image's user.
    dir = mkdtempSync(join(tmpdir(), 'at-image-'));
    chmodSync(dir, 0o777);
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ allow_private_targets: true }));
    const common = ['--network=host', '-v', `${dir}:/data`, '-e', 'HOST=127.0.0.1', '-e', `TEMPORAL_ADDRESS=${temporal.address}`,
      '-e', 'ACTION_TRIGGERS_CONFIG=/data/config.json'];
    apiUrl = `http://127.0.0.1:${apiPort}`;
    await started([...common, '-e', `PORT=${apiPort}`, IMAGE, '--role=api']);
    await started([...common, '--no-healthcheck', IMAGE, '--role=worker']);
    await eventually(async () => (await fetch(`${apiUrl}/readyz`)).ok, 60_000, 'the API role is ready');
  });
  afterAll(async () => {
    await rx?.close();
    await temporal?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('a signal sent to the API container is delivered by the worker container', async () => {
    const created = await fetch(`${apiUrl}/api/action-triggers`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify(triggerBody({ webhooks: [{ url: rx.url('/hook'), http_method: 'POST' }], payload: { order: '{{ instance.id }}' } })),
    });
    expect(created.status).toBe(201);
    const sent = await fetch(`${apiUrl}/api/signals`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'image-signal-1', signal: 'post_save', app_label: 'shop', model_name: 'order', instance: { id: 42 } }),
    });
    expect(sent.status).toBe(202);
    await rx.waitFor(() => rx.on('/hook').length > 0, 60_000);
    expect(JSON.parse(rx.on('/hook')[0]!.body)).toEqual({ order: 42 });
  });
});
