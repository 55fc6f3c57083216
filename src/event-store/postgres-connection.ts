import { Client, Pool } from 'pg';
import { StoreUnavailable } from './port';
import { NOTIFY_CHANNEL } from './postgres-schema';

/** Network errors the driver passes on from the socket. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * SQLSTATE classes that mean the server is away or refusing work for now, not that the request
 * was wrong: 08 connection exception, 53 insufficient resources (too many connections), 57
 * operator intervention (shutting down, starting up, statement timeout), 58 system error.
 */
const UNAVAILABLE_CLASSES = new Set(['08', '53', '57', '58']);

/**
 * The server's own errors carry a SQLSTATE; an error without one came from losing the connection
 * (the driver's "Connection terminated", its connect and query time-outs). Either way the text
 * says what happened and never carries a statement's parameters.
 */
export const unavailableReason = (e: unknown): string | undefined => {
  const error = e as { code?: unknown; message?: unknown; severity?: unknown };
  const code = typeof error?.code === 'string' ? error.code : undefined;
  const message = typeof error?.message === 'string' ? error.message : String(e);
  if (code && NETWORK_CODES.has(code)) return `cannot reach the PostgreSQL server (${code})`;
  if (code && /^[0-9A-Z]{5}$/.test(code)) return UNAVAILABLE_CLASSES.has(code.slice(0, 2)) ? `PostgreSQL: ${message} (${code})` : undefined;
  if (error?.severity === undefined && /connection|timeout|terminated|not queryable/i.test(message)) return `PostgreSQL: ${message}`;
  return undefined;
};

/** Runs `work` on the pool; an outage comes out as StoreUnavailable (the API answers 503), anything else as it was. */
export const guarded = (pool: Pool) => async <T>(work: (pool: Pool) => Promise<T>): Promise<T> => {
  try {
    return await work(pool);
  } catch (e) {
    const reason = unavailableReason(e);
    throw reason === undefined ? e : new StoreUnavailable(reason);
  }
};

/**
 * LISTENs on its own connection for the categories appends wrote (any process, any host), and
 * connects again a second after losing it; meanwhile subscriptions still poll.
 */
export const listenForAppends = (options: { url: string; connectTimeoutMs: number }, onCategories: (categories?: ReadonlySet<string>) => void) => {
  let closed = false;
  let client: Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const connect = async () => {
    retry = undefined;
    if (closed) return;
    const c = new Client({ connectionString: options.url, connectionTimeoutMillis: options.connectTimeoutMs, keepAlive: true, application_name: 'action-triggers listen' });
    const lost = () => {
      if (client !== c) return;
      client = undefined;
      void c.end().catch(() => undefined);
      if (!closed) retry = setTimeout(() => void connect(), 1000);
    };
    c.on('error', lost);
    c.on('end', lost);
    c.on('notification', (n) => { if (n.payload) onCategories(new Set([n.payload])); });
    client = c;
    try {
      await c.connect();
      await c.query(`LISTEN ${NOTIFY_CHANNEL}`);
      // Anything appended while this connection was away: every subscription reads once.
      onCategories(undefined);
    } catch {
      lost();
    }
  };
  void connect();
  return {
    close: async () => {
      closed = true;
      if (retry) clearTimeout(retry);
      const c = client;
      client = undefined;
      await c?.end().catch(() => undefined);
    },
  };
};
