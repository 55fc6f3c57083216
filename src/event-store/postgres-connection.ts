import { Client, Pool } from 'pg';
import { StoreUnavailable } from './port';
import { NOTIFY_CHANNEL } from './postgres-schema';

/** Network errors the driver passes on from the socket. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
]);

/**
 * SQLSTATE classes that mean the server is away or refusing work for now, not that the request
 * was wrong: 08 connection exception, 28 authorization (a rotated password), 53 insufficient
 * resources (disk full, too many connections), 57 operator intervention (shutting down,
 * starting up, statement timeout), 58 system error; and 25006, a read-only server (a replica
 * after a failover).
 */
const UNAVAILABLE_CLASSES = new Set(['08', '28', '53', '57', '58']);
const UNAVAILABLE_CODES = new Set(['25006']);

/** What the common ones mean, in our words: the server's own text may name files and users, and /readyz is public. */
const MEANINGS: Record<string, string> = {
  '57P01': 'the server is shutting down',
  '57P02': 'the server crashed',
  '57P03': 'the server is starting up',
  '53300': 'the server has no connection free',
  '53100': "the server's disk is full",
  '57014': 'a statement ran past its time-out',
  '25006': 'the server is read-only',
  '28P01': 'the server refused the password',
  '28000': 'the server refused the login',
};

/**
 * Why an error means the store is away, or undefined when it does not (a bug: 500). The server's
 * errors carry a SQLSTATE; one without came from losing the connection (the driver's
 * "Connection terminated", its connect and query time-outs: fixed texts). The reason never
 * carries the server's text or a statement's parameters.
 */
export const unavailableReason = (e: unknown): string | undefined => {
  const error = e as { code?: unknown; message?: unknown; severity?: unknown };
  const code = typeof error?.code === 'string' ? error.code : undefined;
  const message = typeof error?.message === 'string' ? error.message : String(e);
  if (code && NETWORK_CODES.has(code)) return `cannot reach the PostgreSQL server (${code})`;
  if (code && /^[0-9A-Z]{5}$/.test(code)) {
    if (!UNAVAILABLE_CLASSES.has(code.slice(0, 2)) && !UNAVAILABLE_CODES.has(code)) return undefined;
    return `PostgreSQL: ${MEANINGS[code] ?? 'the server refused the work'} (SQLSTATE ${code})`;
  }
  if (error?.severity === undefined && /connection|timeout|terminated|not queryable/i.test(message)) return `PostgreSQL: ${message}`;
  return undefined;
};

/** Runs `work` on the pool; an outage comes out as StoreUnavailable (the API answers 503), anything else as it was. */
export const guarded =
  (pool: Pool) =>
  async <T>(work: (pool: Pool) => Promise<T>): Promise<T> => {
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
export const listenForAppends = (
  options: { url: string; connectTimeoutMs: number },
  onCategories: (categories?: ReadonlySet<string>) => void,
) => {
  let closed = false;
  let client: Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const connect = async () => {
    retry = undefined;
    if (closed) return;
    const c = new Client({
      connectionString: options.url,
      connectionTimeoutMillis: options.connectTimeoutMs,
      keepAlive: true,
      application_name: 'action-triggers listen',
    });
    const lost = () => {
      if (client !== c) return;
      client = undefined;
      void c.end().catch(() => undefined);
      if (!closed) retry = setTimeout(() => void connect(), 1000);
    };
    c.on('error', lost);
    c.on('end', lost);
    c.on('notification', (n) => {
      if (n.payload) onCategories(new Set([n.payload]));
    });
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
