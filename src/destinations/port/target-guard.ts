import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import { connect as tcpConnect, isIP } from 'node:net';
import { buildConnector } from 'undici';
import { bareHost, isPrivateAddress, isLocalhostName } from '../../kernel/hosts';

/**
 * The SSRF guard every destination shares: the webhook transport dials through it; the broker
 * channel and the dry run ask it about a host before a client connects.
 *
 * The one message for every refused target, whether the URL held a literal address, DNS
 * answered with one, or the socket reached one: it names no address, so the dispatch status
 * (`GET /api/signals/<id>`) cannot be used to map what the worker can see.
 */
export const TARGET_REFUSED = 'webhook target refused: not a public address (allow_private_targets is off)';

export class TargetRefused extends Error {
  constructor() {
    super(TARGET_REFUSED);
    this.name = 'TargetRefused';
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

type Refuses = (address: string) => boolean;

/** A DNS lookup that fails when any answer is refused (an attacker's DNS may mix public and private). */
const guardedLookup = (refuses: Refuses) => (hostname: string, options: object, callback: LookupCallback) => {
  if (isLocalhostName(bareHost(hostname))) return callback(new TargetRefused(), []);
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    if (addresses.length === 0 || addresses.some((a) => refuses(a.address))) return callback(new TargetRefused(), []);
    if ((options as { all?: boolean }).all === true) return callback(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};

const CONNECT_TIMEOUT_MS = 10_000;

export interface GuardOptions {
  /** The classifier; tests narrow it to reach a loopback TLS server through the guard. */
  readonly refuses?: Refuses;
  readonly tls?: buildConnector.BuildOptions;
}

/**
 * Dials TCP, then checks the address the socket actually reached before a byte is written (for
 * https, before the TLS handshake): literal hosts in any spelling, DNS names and anything the
 * resolver does all end at this one check.
 */
export const guardedConnector = ({ refuses = isPrivateAddress, tls: tlsOptions = {} }: GuardOptions = {}): buildConnector.connector => {
  const tls = buildConnector({ ...tlsOptions, timeout: CONNECT_TIMEOUT_MS });
  const lookup = guardedLookup(refuses);
  return (opts, callback) => {
    const host = opts.hostname.startsWith('[') ? opts.hostname.slice(1, -1) : opts.hostname;
    if (isIP(host) && refuses(host)) return callback(new TargetRefused(), null);
    const socket = tcpConnect({ host, port: Number(opts.port) || (opts.protocol === 'https:' ? 443 : 80), lookup });
    const timer = setTimeout(() => socket.destroy(new Error(`connect timeout after ${CONNECT_TIMEOUT_MS} ms`)), CONNECT_TIMEOUT_MS);
    const done = (err: Error | null) => {
      clearTimeout(timer);
      socket.removeAllListeners('connect').removeAllListeners('error');
      if (err) {
        socket.destroy();
        return callback(err, null);
      }
      socket.setNoDelay(true).setKeepAlive(true, 60_000);
      // TLS runs over the checked socket (Node forwards its errors to the TLS socket).
      if (opts.protocol === 'https:') return tls({ ...opts, httpSocket: socket }, callback);
      callback(null, socket);
    };
    socket.once('error', (e) =>
      done(e instanceof TargetRefused || (e as { cause?: unknown }).cause instanceof TargetRefused ? new TargetRefused() : e),
    );
    socket.once('connect', () => done(socket.remoteAddress !== undefined && !refuses(socket.remoteAddress) ? null : new TargetRefused()));
  };
};

/** True when a request failed because the guard refused its target (undici may wrap the error). */
export const isTargetRefused = (e: unknown): boolean =>
  e instanceof TargetRefused || (e as { cause?: unknown } | undefined)?.cause instanceof TargetRefused;

export type TargetCheck = { kind: 'allowed' } | { kind: 'refused' } | { kind: 'unresolved'; reason: string };

/**
 * What the guard would say of a URL's host now, without dialling: the same literal-address check
 * and the same guarded DNS lookup a connection goes through (the dry run asks it). The socket's
 * peer check cannot run without connecting; it refuses only what these already refuse.
 */
export const checkTarget = (
  url: string,
  { refuses = isPrivateAddress, timeoutMs = 5000 }: { refuses?: Refuses; timeoutMs?: number } = {},
): Promise<TargetCheck> => {
  let hostname: string;
  try {
    hostname = new URL(url).hostname;
  } catch {
    return Promise.resolve({ kind: 'unresolved', reason: 'Invalid URL' });
  }
  const host = bareHost(hostname);
  if (isIP(host)) return Promise.resolve(refuses(host) ? { kind: 'refused' } : { kind: 'allowed' });
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ kind: 'unresolved', reason: `no DNS answer within ${timeoutMs} ms` }), timeoutMs);
    guardedLookup(refuses)(hostname, {}, (err) => {
      clearTimeout(timer);
      if (err instanceof TargetRefused) resolve({ kind: 'refused' });
      else if (err) resolve({ kind: 'unresolved', reason: `DNS lookup failed (${err.code ?? err.message})` });
      else resolve({ kind: 'allowed' });
    });
  });
};
