import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * A loopback HTTP proxy in front of the service that records each answer's body and, while
 * `hold` is on, passes the request on and keeps the answer back (the connection stays open): a
 * relay stopped then has had its signals accepted without learning it.
 */
export const startHoldingProxy = async (target: string) => {
  const answers: Array<{ status: number; body: string }> = [];
  let hold = false;
  const held = new Set<ServerResponse>();
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const holding = hold;
      try {
        const answer = await fetch(`${target}${req.url ?? '/'}`, {
          method: req.method,
          headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
          body: chunks.length ? Buffer.concat(chunks) : undefined,
          redirect: 'manual',
        });
        const body = await answer.text();
        answers.push({ status: answer.status, body });
        if (holding) held.add(res);
        else res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' }).end(body);
      } catch {
        res.destroy();
      }
    });
  };
  const server: Server = createServer(handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    answers,
    setHold: (on: boolean) => {
      hold = on;
    },
    close: () =>
      new Promise<void>((r) => {
        held.forEach((res) => res.destroy());
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
};
