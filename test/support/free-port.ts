import { createServer } from 'node:net';

/** A loopback port free right now. */
export const freePort = () => new Promise<number>((resolve, reject) => {
  const server = createServer();
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    server.close(() => resolve(port));
  });
  server.on('error', reject);
});

/** `n` distinct loopback ports free right now (two calls to freePort may return the same one). */
export const freePorts = async (n: number): Promise<number[]> => {
  const servers = Array.from({ length: n }, () => createServer());
  const ports = await Promise.all(servers.map((s) => new Promise<number>((resolve, reject) => {
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => { const a = s.address(); resolve(typeof a === 'object' && a ? a.port : 0); });
  })));
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
};
