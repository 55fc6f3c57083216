import { AddressInfo, connect } from 'node:net';
import { Server } from 'node:http';
import { createHttpServer, listen, SERVER_TIMEOUTS } from '../../../src/http/server';
import { startTestApp } from '../../support/test-app';

/** Slow clients are cut off: headers and whole requests have a time bound. */
let t: Awaited<ReturnType<typeof startTestApp>>;
let server: Server;
let port: number;
const SHORT = { headersMs: 600, requestMs: 1200, keepAliveMs: 500, checkIntervalMs: 100 };
beforeAll(async () => {
  t = await startTestApp({ api_keys: [{ id: 'writer', key: 'writer-secret', scopes: ['triggers:write'] }] });
  server = await listen(createHttpServer(t.app, SHORT), '127.0.0.1', 0);
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await t.close();
});

/** Writes `text` one byte every `everyMs`; resolves when the server closes the connection. */
const trickle = (text: string, everyMs: number) =>
  new Promise<{ afterMs: number; sent: number; answer: string }>((resolve) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    let sent = 0;
    let answer = '';
    const timer = setInterval(() => {
      if (sent < text.length && socket.writable) socket.write(text[sent++]!);
    }, everyMs);
    socket.on('data', (chunk) => {
      answer += chunk.toString();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ afterMs: Date.now() - started, sent, answer });
    });
  });

test('a client sending its headers one byte at a time is cut off after the headers timeout', async () => {
  const head = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ' + 'a'.repeat(200) + '\r\n\r\n';
  const cut = await trickle(head, 50);
  expect(cut.sent).toBeLessThan(head.length);
  expect(cut.afterMs).toBeLessThan(SHORT.headersMs + 1000);
  expect(cut.answer).toMatch(/^HTTP\/1\.1 408 /);
});

test('a client sending its body one byte at a time is cut off after the request timeout', async () => {
  const body = JSON.stringify({ pad: 'x'.repeat(200) });
  const head = [
    'POST /api/action-triggers HTTP/1.1',
    'Host: 127.0.0.1',
    'Authorization: Bearer writer-secret',
    'Content-Type: application/json',
    `Content-Length: ${body.length}`,
  ].join('\r\n');
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  socket.write(`${head}\r\n\r\n`);
  const started = Date.now();
  let sent = 0;
  const timer = setInterval(() => {
    if (sent < body.length && socket.writable) socket.write(body[sent++]!);
  }, 50);
  await new Promise((r) => socket.once('close', r));
  clearInterval(timer);
  expect(sent).toBeLessThan(body.length);
  expect(Date.now() - started).toBeLessThan(SHORT.requestMs + 1000);
});

test('the service bounds headers, requests and idle connections', () => {
  expect(SERVER_TIMEOUTS.headersMs).toBeLessThanOrEqual(10_000);
  expect(SERVER_TIMEOUTS.requestMs).toBeLessThanOrEqual(30_000);
  const real = createHttpServer(t.app);
  expect(real.headersTimeout).toBe(SERVER_TIMEOUTS.headersMs);
  expect(real.requestTimeout).toBe(SERVER_TIMEOUTS.requestMs);
  expect(real.keepAliveTimeout).toBe(SERVER_TIMEOUTS.keepAliveMs);
});
