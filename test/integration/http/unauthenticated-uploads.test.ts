import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, Socket } from 'node:net';
import { join } from 'node:path';
import { startServerProcess, stopServerProcess, ServerProcess } from '../../support/server-process';
import { tempDir } from '../../support/test-app';

/**
 * Many unauthenticated uploads held open at once cost the server no memory: it answers 401
 * from the headers and never buffers the bodies (before, 1,500 such uploads of 1 MB
 * took the server from 0.6 to 2 GB).
 */
jest.setTimeout(120_000);

const UPLOADS = 300;
const BODY_BYTES = 1024 * 1024;
/**
 * Buffering the bodies adds about UPLOADS × BODY_BYTES (measured: 284 MB). 300 open sockets
 * alone: 57–72 MB on Node 24 run alone, 112 MB once with the rest of the suite beside it.
 */
const MAX_GROWTH_MB = 160;

let dir: string;
let server: ServerProcess;
beforeAll(async () => {
  dir = tempDir('at-uploads-');
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ api_keys: [{ id: 'ops', key: 'ops-secret', scopes: ['triggers:write'] }] }));
  server = await startServerProcess({ ACTION_TRIGGERS_CONFIG: config, DATA_DIR: join(dir, 'data') });
});
afterAll(async () => {
  if (server) await stopServerProcess(server);
  rmSync(dir, { recursive: true, force: true });
});

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/** Sends the whole body but its last byte, so a server that reads bodies holds all of it. */
const openUpload = (port: number) =>
  new Promise<{ socket: Socket; answer: () => string }>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (c) => {
      received += c.toString();
    });
    socket.on('error', () => undefined);
    socket.on('connect', () => {
      socket.write(
        [
          'POST /api/action-triggers HTTP/1.1',
          'Host: 127.0.0.1',
          'Content-Type: application/json',
          `Content-Length: ${BODY_BYTES}`,
          '',
          '',
        ].join('\r\n'),
      );
      socket.write(`"${'x'.repeat(BODY_BYTES - 2)}`, () => resolve({ socket, answer: () => received }));
      // A server that closes the connection early never drains the write: resolve on close too.
      socket.once('close', () => resolve({ socket, answer: () => received }));
    });
  });

test(`${UPLOADS} unauthenticated 1 MB uploads held open are answered 401 and do not grow the server's memory`, async () => {
  const port = Number(new URL(server.url).port);
  const pid = server.child.pid!;
  const before = rssMb(pid);
  const uploads = await Promise.all(Array.from({ length: UPLOADS }, () => openUpload(port)));
  await new Promise((r) => setTimeout(r, 1000));
  const after = rssMb(pid);
  uploads.forEach((u) => u.socket.destroy());
  expect(uploads.filter((u) => /^HTTP\/1\.1 401 /.test(u.answer())).length).toBe(UPLOADS);
  expect(after - before).toBeLessThan(MAX_GROWTH_MB);
});
