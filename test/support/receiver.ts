import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';

export interface Received {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

export interface Reply {
  status?: number;
  delayMs?: number;
  headers?: Record<string, string>;
}

/**
 * A real HTTP receiver on a loopback port. It records every request and answers from a
 * per-path script of replies (then 200), so a test can make it fail, hang or recover. On `port`
 * when given (started where deliveries already go), else on a free one.
 */
export const startReceiver = async (defaults: Reply = {}, host = '127.0.0.1', port = 0) => {
  const received: Received[] = [];
  const counts = new Map<string, number>();
  const scripts = new Map<string, Reply[]>();
  const waiters: Array<() => void> = [];
  let chooser: ((r: Received) => Reply | undefined) | undefined;
  const open = new Set<ServerResponse>();
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const request: Received = {
        method: req.method ?? '',
        path,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      received.push(request);
      counts.set(path, (counts.get(path) ?? 0) + 1);
      const reply = scripts.get(path)?.shift() ?? chooser?.(request) ?? defaults;
      // After the chooser: what it records about the request is part of what waiters check.
      waiters.splice(0).forEach((w) => w());
      open.add(res);
      res.on('close', () => open.delete(res));
      const send = () => {
        if (!res.destroyed) {
          res.writeHead(reply.status ?? 200, reply.headers);
          res.end('ok');
        }
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  };
  const server: Server = createServer(handle);
  server.keepAliveTimeout = 1000;
  await new Promise<void>((r) => server.listen(port, host, () => r()));
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : 0;
  return {
    url: (path: string) => `http://${host}:${bound}${path}`,
    received,
    on: (path: string) => received.filter((r) => r.path === path),
    /** How many requests a path got, without scanning them (benchmarks check it per request). */
    count: (path: string) => counts.get(path) ?? 0,
    /** Chooses the reply to each request not scripted (undefined: the default), e.g. by its body. */
    respond: (choose: (r: Received) => Reply | undefined) => {
      chooser = choose;
    },
    /** Scripts the next replies for a path. */
    script: (path: string, replies: Reply[]) => scripts.set(path, [...replies]),
    /** Resolves when `predicate` holds, checked on every request; rejects after `timeoutMs`. */
    waitFor: (predicate: () => boolean, timeoutMs = 30_000) =>
      new Promise<void>((resolve, reject) => {
        const deadline = setTimeout(
          () => reject(new Error(`receiver: condition not met within ${timeoutMs} ms (${received.length} requests)`)),
          timeoutMs,
        );
        const check = () => {
          if (predicate()) {
            clearTimeout(deadline);
            resolve();
          } else waiters.push(check);
        };
        check();
      }),
    close: () =>
      new Promise<void>((r) => {
        open.forEach((res) => res.destroy());
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
};

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
