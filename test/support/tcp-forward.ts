import { createConnection, createServer, Server } from 'node:net';

/**
 * Listens on `host` (a free port) and passes every connection on to `target` (host:port): test
 * hosts in network namespaces reach a server that listens on loopback only (Temporal's dev
 * server, given a bridge's address, dials its own services on 127.0.0.1 and fails).
 */
export const forwardTcp = async (host: string, target: string): Promise<{ address: string; close: () => Promise<void> }> => {
  const [targetHost, targetPort] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
  const sockets = new Set<import('node:net').Socket>();
  const server: Server = createServer((inbound) => {
    const outbound = createConnection(targetPort, targetHost);
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        inbound.destroy();
        outbound.destroy();
      });
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((r) => server.listen(0, host, () => r()));
  const { port } = server.address() as { port: number };
  return {
    address: `${host}:${port}`,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
};
