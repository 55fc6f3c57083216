import type { PoolLike } from '../outbox/db.ts';

/** One line of what the relay does, for the log: `message` says it, the rest are its facts. */
export interface RelayEvent {
  level: 'info' | 'warn' | 'error';
  message: string;
  [fact: string]: unknown;
}

export interface RelayOptions {
  /** A node-postgres `Pool` of the database holding the outbox; the relay keeps one of its connections for LISTEN. */
  pool: PoolLike;
  /** The service's address, e.g. `https://triggers.example.com`: signals go to `<url>/api/signals`. */
  url: string;
  /** A key with the `signals:write` scope, sent as `Authorization: Bearer …`. */
  apiKey?: string;
  /** Signals per request, at most 500 (the service's limit). Default 100. */
  batchSize?: number;
  /** JSON bytes per request, under the service's body limit (1 MiB by default). Default 900,000. */
  maxBatchBytes?: number;
  /** How long a relay holds the rows it claimed; a relay that died loses them after this. Default 30 s. */
  leaseMs?: number;
  /** One request's time limit. Default 10 s. */
  timeoutMs?: number;
  /** How often an idle relay looks for rows anyway (a NOTIFY missed, a dead relay's lease run out). Default 5 s. */
  pollIntervalMs?: number;
  /** The longest wait between two tries while the service is away. Default 30 s. */
  maxBackoffMs?: number;
  /** Where the relay says what it does. Default: warnings and errors to stderr, one JSON line each. */
  log?: (event: RelayEvent) => void;
  /** For tests: the fetch to send with. */
  fetch?: typeof fetch;
}

export type Settings = Required<Omit<RelayOptions, 'apiKey'>> & Pick<RelayOptions, 'apiKey'>;

const stderrLog = (event: RelayEvent) => {
  if (event.level !== 'info') process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), ...event })}\n`);
};

const positive = (name: string, value: number | undefined, fallback: number, max = Number.MAX_SAFE_INTEGER) => {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v <= 0 || v > max) throw new RangeError(`${name} must be a whole number from 1 to ${max}, not ${value}`);
  return v;
};

/** The options with their defaults, checked once at start. */
export const settingsOf = (o: RelayOptions): Settings => {
  if (!o.pool || typeof o.pool.connect !== 'function') throw new TypeError('pool must be a node-postgres Pool');
  const url = new URL(o.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`url must be an http(s) address, not ${o.url}`);
  return {
    pool: o.pool,
    url: o.url.replace(/\/+$/, ''),
    apiKey: o.apiKey,
    batchSize: positive('batchSize', o.batchSize, 100, 500),
    maxBatchBytes: positive('maxBatchBytes', o.maxBatchBytes, 900_000),
    leaseMs: positive('leaseMs', o.leaseMs, 30_000),
    timeoutMs: positive('timeoutMs', o.timeoutMs, 10_000),
    pollIntervalMs: positive('pollIntervalMs', o.pollIntervalMs, 5_000),
    maxBackoffMs: positive('maxBackoffMs', o.maxBackoffMs, 30_000),
    log: o.log ?? stderrLog,
    fetch: o.fetch ?? fetch,
  };
};
