import { openOrDestroy } from '../broker-kit/client-lifetime';

/** Where a Redis server is: a URL, or its parts. */
export type RedisConnection = { url: string } | { host: string; port: number; db: number; username?: string; password?: string };

/**
 * An ioredis client, connected. No offline queue: while the server is away a command fails at
 * once, and Temporal's retry brings it back later, instead of the client holding it in memory.
 */
export const openRedis = async (connection: RedisConnection, signal: AbortSignal) => {
  const { default: Redis } = await import('ioredis');
  const options = { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0 };
  const client = 'url' in connection ? new Redis(connection.url, options) : new Redis({ ...connection, ...options });
  client.on('error', () => undefined); // reported through the failing command
  // disconnect(): ioredis would otherwise keep reconnecting a client that never opened.
  await openOrDestroy(signal, client.connect(), () => client.disconnect());
  return client;
};
