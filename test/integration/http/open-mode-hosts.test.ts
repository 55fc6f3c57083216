import { request as httpRequest, RequestListener, Server } from 'node:http';
import { connect } from 'node:net';
import { createAuth } from '../../../src/http/auth';
import { createHttpServer, listen } from '../../../src/http/server';
import { createMetrics } from '../../../src/observability/metrics';
import { buildMetricsApp } from '../../../src/ops/metrics-route';
import { aTrigger, startTestApp } from '../../support/test-app';

/**
 * Open mode (no api_keys) serves whoever reaches the loopback port; a web page reaches it too,
 * by rebinding its own name to 127.0.0.1 (DNS rebinding) or by sending from its origin. Real
 * servers on loopback, requests with the Host and Origin a browser would send.
 */
interface Answer {
  status: number;
  body: string;
  json?: { status?: number; detail?: string; title?: string };
}

const serve = async (app: RequestListener) => listen(createHttpServer(app), '127.0.0.1', 0);
const portOf = (server: Server) => (server.address() as { port: number }).port;
const close = (server: Server) => new Promise((r) => server.close(r));

/** One request with exactly these headers (Host included): what a browser on a rebound name sends. */
const send = (server: Server, path: string, headers: Record<string, string>, method = 'GET', body?: unknown) =>
  new Promise<Answer>((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: portOf(server),
        path,
        method,
        agent: false,
        headers: {
          ...headers,
          ...(payload ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) } : {}),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => {
          text += c.toString();
        });
        res.on('end', () => {
          const json = /json/.test(res.headers['content-type'] ?? '') ? JSON.parse(text) : undefined;
          resolve({ status: res.statusCode!, body: text, json });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });

let t: Awaited<ReturnType<typeof startTestApp>>;
let server: Server;
let port: number;
beforeAll(async () => {
  t = await startTestApp();
  server = await serve(t.app);
  port = portOf(server);
});
afterAll(async () => {
  await close(server);
  await t.close();
});

const expectRefused = (answer: Answer, why: RegExp) => {
  expect(answer.status).toBe(403);
  expect(answer.json).toMatchObject({ status: 403, title: 'Forbidden', detail: expect.stringMatching(why) });
  expect(answer.json!.detail).toMatch(/configure api_keys/);
};

test('no keys: a request naming a foreign Host is refused with a problem that says why, on every path but the probes; nothing is created', async () => {
  const host = `attacker.example:${port}`;
  const posted = await send(server, '/api/action-triggers', { host }, 'POST', aTrigger({ msg_broker_queues: [] }));
  expectRefused(posted, /only requests addressed to a loopback name/);
  expect(posted.json!.detail).toContain(`http://127.0.0.1:${port}/`);
  for (const path of [
    '/api/action-triggers',
    '/api/signals',
    '/admin/',
    '/admin/config.json',
    '/api/openapi.json',
    '/docs',
    '/api/events',
    '/nowhere',
  ]) {
    expectRefused(await send(server, path, { host }), /loopback name/);
  }
  for (const other of [
    'attacker.example',
    '127.0.0.1.nip.io',
    'localhost.attacker.example',
    `10.0.0.1:${port}`,
    `[::2]:${port}`,
    'attacker.example@127.0.0.1',
    'localhostx',
    '128.0.0.1',
  ]) {
    expect({ other, status: (await send(server, '/api/action-triggers', { host: other })).status }).toEqual({ other, status: 403 });
  }
  // Orchestrators probe by IP or service name; the probes carry no data.
  expect((await send(server, '/healthz', { host })).status).toBe(200);
  expect((await send(server, '/readyz', { host })).status).toBe(200);
  const list = await send(server, '/api/action-triggers', { host: `127.0.0.1:${port}` });
  expect(list.status).toBe(200);
  expect(JSON.parse(list.body)).toEqual([]);
});

test('no keys: loopback names, with or without port, and no Host at all (HTTP/1.0) are served', async () => {
  for (const host of [
    `127.0.0.1:${port}`,
    '127.0.0.1',
    `localhost:${port}`,
    'LOCALHOST',
    `admin.localhost:${port}`,
    `[::1]:${port}`,
    '[::1]',
    `127.1.2.3:${port}`,
  ]) {
    expect({ host, status: (await send(server, '/api/action-triggers', { host })).status }).toEqual({ host, status: 200 });
  }
  expect((await send(server, '/admin/', { host: `localhost:${port}` })).status).toBe(200);
  const created = await send(server, '/api/action-triggers', { host: `localhost:${port}` }, 'POST', aTrigger({ msg_broker_queues: [] }));
  expect(created.status).toBe(201);
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end('GET /api/action-triggers HTTP/1.0\r\n\r\n'));
    let text = '';
    socket.on('data', (c: Buffer) => {
      text += c.toString();
    });
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
  expect(answer).toMatch(/^HTTP\/1\.1 200 /);
});

test('no keys: a request from a page of another origin is refused (Origin, or Sec-Fetch-Site without one); same-machine pages and plain links are served', async () => {
  const host = `127.0.0.1:${port}`;
  for (const origin of ['http://attacker.example', `http://attacker.example:${port}`, 'null', 'https://127.0.0.1.nip.io', 'file://']) {
    expectRefused(
      await send(server, '/api/action-triggers', { host, origin }, 'POST', aTrigger({ msg_broker_queues: [] })),
      /other origins/,
    );
    expectRefused(await send(server, '/api/action-triggers', { host, origin }), /other origins/);
  }
  expectRefused(
    await send(server, '/api/action-triggers', { host, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' }),
    /other origins/,
  );
  // The admin page's own requests (same origin), another local page, and a link followed from elsewhere.
  expect(
    (await send(server, '/api/action-triggers', { host, origin: `http://${host}` }, 'POST', aTrigger({ msg_broker_queues: [] }))).status,
  ).toBe(201);
  expect(
    (await send(server, '/api/action-triggers', { host, origin: 'http://localhost:5173', 'sec-fetch-site': 'cross-site' })).status,
  ).toBe(200);
  expect((await send(server, '/api/action-triggers', { host, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' })).status).toBe(
    200,
  );
  expect((await send(server, '/admin/', { host, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' })).status).toBe(200);
});

test('with api_keys nothing changes: a foreign Host or Origin with a valid key is served, without one it is 401', async () => {
  const keyed = await startTestApp({ api_keys: [{ id: 'ops', key: 'ops-secret', scopes: ['triggers:read', 'triggers:write'] }] });
  const keyedServer = await serve(keyed.app);
  try {
    const headers = { host: 'api.example.com', origin: 'https://console.example.com' };
    const auth = { authorization: 'Bearer ops-secret' };
    expect(
      (await send(keyedServer, '/api/action-triggers', { ...headers, ...auth }, 'POST', aTrigger({ msg_broker_queues: [] }))).status,
    ).toBe(201);
    expect((await send(keyedServer, '/api/action-triggers', { ...headers, ...auth })).status).toBe(200);
    expect((await send(keyedServer, '/api/action-triggers', headers)).status).toBe(401);
    expect((await send(keyedServer, '/admin/', headers)).status).toBe(200);
  } finally {
    await close(keyedServer);
    await keyed.close();
  }
});

test("no keys: the worker's metrics port is guarded the same way", async () => {
  const metricsServer = await serve(buildMetricsApp(createMetrics({ defaultMetrics: false }), createAuth([])));
  try {
    expectRefused(await send(metricsServer, '/metrics', { host: `attacker.example:${portOf(metricsServer)}` }), /loopback name/);
    expect((await send(metricsServer, '/metrics', { host: `127.0.0.1:${portOf(metricsServer)}` })).status).toBe(200);
  } finally {
    await close(metricsServer);
  }
});
