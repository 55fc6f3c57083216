import { createServer, RequestListener, Server } from 'node:http';

/**
 * How long one client may hold a connection without finishing its request. Node's defaults
 * (60 s for headers, 300 s for a request, checked every 30 s) let slow clients that trickle
 * bytes pin thousands of sockets.
 */
export interface ServerTimeouts {
  /** Until the request's headers are complete; then 408 and the connection closes. */
  readonly headersMs: number;
  /** Until the whole request, body included, is received. */
  readonly requestMs: number;
  /** An idle keep-alive connection is closed after this. */
  readonly keepAliveMs: number;
  /** How often Node looks for connections past headersMs or requestMs. */
  readonly checkIntervalMs: number;
}

export const SERVER_TIMEOUTS: ServerTimeouts = { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000, checkIntervalMs: 1_000 };

/** The HTTP server for the app, with the timeouts above; never listens (the caller does). */
export const createHttpServer = (app: RequestListener, timeouts: ServerTimeouts = SERVER_TIMEOUTS): Server => {
  const server = createServer(
    {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      keepAliveTimeout: timeouts.keepAliveMs,
      connectionsCheckingInterval: timeouts.checkIntervalMs,
    },
    app,
  );
  return server;
};

/** Listens on host:port; resolves once listening. */
export const listen = (server: Server, host: string, port: number) =>
  new Promise<Server>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
