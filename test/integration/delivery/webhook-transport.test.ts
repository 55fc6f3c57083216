import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { guardedConnector, isTargetRefused } from '../../../src/destinations/port/target-guard';

const fixture = (name: string) => readFileSync(join(__dirname, '../../fixtures/tls', name));
const cert = fixture('loopback-cert.pem');

/** A loopback https server that counts TCP connections and completed TLS handshakes. */
const startTlsServer = async () => {
  const seen = { connections: 0, handshakes: 0 };
  const server = createServer({ cert, key: fixture('loopback-key.pem') }, (_req, res) => res.end('ok'));
  server.on('connection', () => {
    seen.connections += 1;
  });
  server.on('secureConnection', () => {
    seen.handshakes += 1;
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    seen,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
};

test('https goes through the guard: TCP is dialled and checked first, then TLS runs over that socket', async () => {
  const server = await startTlsServer();
  const agent = new Agent({ connect: guardedConnector({ refuses: (ip) => ip !== '127.0.0.1', tls: { ca: cert } }) });
  try {
    const res = await request(`https://127.0.0.1:${server.port}/`, { dispatcher: agent });
    expect([res.statusCode, await res.body.text()]).toEqual([200, 'ok']);
    expect(server.seen.handshakes).toBe(1);
  } finally {
    await agent.close();
    await server.close();
  }
});

test('a refused https target gets no TCP connection and no TLS handshake', async () => {
  const server = await startTlsServer();
  const agent = new Agent({ connect: guardedConnector({ tls: { ca: cert } }) });
  try {
    for (const host of ['127.0.0.1', '[::ffff:7f00:1]', 'localhost']) {
      const err = await request(`https://${host}:${server.port}/`, { dispatcher: agent }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect([host, isTargetRefused(err)]).toEqual([host, true]);
    }
    expect(server.seen).toEqual({ connections: 0, handshakes: 0 });
  } finally {
    await agent.close();
    await server.close();
  }
});
