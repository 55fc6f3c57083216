import { AddressInfo, connect, Socket } from 'node:net';
import { Server } from 'node:http';
import { startTestApp } from '../../support/test-app';

/**
 * A refused request is answered from its headers alone: its body is never read, so
 * unauthenticated uploads cost the server no memory.
 */
let t: Awaited<ReturnType<typeof startTestApp>>;
let server: Server;
let port: number;
beforeAll(async () => {
  t = await startTestApp({
    api_keys: [
      { id: 'writer', key: 'writer-secret', scopes: ['triggers:read', 'triggers:write'] },
      { id: 'reader', key: 'reader-secret', scopes: ['triggers:read'] },
    ],
  });
  server = t.app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await t.close();
});

const BODY_BYTES = 900 * 1024;

/** Sends the head of a request announcing a 900 KB body, and only 1 KB of that body. */
const startUpload = (path: string, headers: Record<string, string> = {}) => {
  const socket: Socket = connect(port, '127.0.0.1');
  const lines = [
    `POST ${path} HTTP/1.1`,
    'Host: 127.0.0.1',
    'Content-Type: application/json',
    `Content-Length: ${BODY_BYTES}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  socket.write(`{"pad":"${'x'.repeat(1000)}`);
  let received = '';
  socket.on('error', () => undefined);
  /** What the server has answered within `ms` ('' when nothing): its head and problem+json body. */
  const answerWithin = (ms: number) =>
    new Promise<string>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        resolve(received);
      };
      const timer = setTimeout(done, ms);
      socket.once('close', done);
      socket.on('data', (chunk) => {
        received += chunk.toString();
        if (/\r\n\r\n[^]*\}$/.test(received)) done();
      });
    });
  return { socket, answerWithin };
};

test('without an API key, an upload is answered 401 before its body is sent', async () => {
  const upload = startUpload('/api/action-triggers');
  const answer = await upload.answerWithin(2000);
  upload.socket.destroy();
  expect(answer).toMatch(/^HTTP\/1\.1 401 /);
});

test('with a key that lacks the scope, an upload is answered 403 before its body is sent', async () => {
  const upload = startUpload('/api/action-triggers', { Authorization: 'Bearer reader-secret' });
  const answer = await upload.answerWithin(2000);
  upload.socket.destroy();
  expect(answer).toMatch(/^HTTP\/1\.1 403 /);
});

test('an upload to a path that does not exist is answered 404 before its body is sent', async () => {
  const upload = startUpload('/api/nothing-here', { Authorization: 'Bearer writer-secret' });
  const answer = await upload.answerWithin(2000);
  upload.socket.destroy();
  expect(answer).toMatch(/^HTTP\/1\.1 404 /);
});

test('with a key that has the scope, the server waits for the body and parses it', async () => {
  const upload = startUpload('/api/action-triggers', { Authorization: 'Bearer writer-secret' });
  expect(await upload.answerWithin(500)).toBe('');
  upload.socket.removeAllListeners('data');
  upload.socket.write(`${' '.repeat(BODY_BYTES - 1000 - '{"pad":"'.length - 2)}"}`);
  const answer = await upload.answerWithin(5000);
  upload.socket.destroy();
  // The whole body arrived and was parsed: `pad` is not a trigger field.
  expect(answer).toMatch(/^HTTP\/1\.1 400 /);
  expect(answer).toContain('"path":"pad"');
});
