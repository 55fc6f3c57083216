import type { NextFunction, Request, Response } from 'express';
import { bareHost, isLocalhostName, isLoopbackAddress } from '../kernel/hosts';
import { sendError } from './problem';

/** A Host header's characters (name or IP literal, optional port): nothing a URL could read as more. */
const HOST_HEADER = /^[a-z0-9.\-[\]:]+$/i;

const hostnameOf = (authority: string, scheme = 'http') => {
  try {
    return new URL(`${scheme}://${authority}`).hostname;
  } catch {
    return undefined;
  }
};

/**
 * Names that only ever mean this machine: `localhost` and `*.localhost` (RFC 6761 § 6.3;
 * browsers resolve them to loopback themselves, so no DNS answer can rebind them), `127.x.x.x`,
 * `[::1]`. A page whose own name an attacker rebinds to 127.0.0.1 sends that name instead.
 */
const isLoopbackName = (hostname: string) => {
  const host = bareHost(hostname);
  return isLocalhostName(host) || isLoopbackAddress(host);
};

/** A Host header (with or without port) that names this machine only. */
export const isLoopbackHost = (host: string) => {
  const hostname = HOST_HEADER.test(host) ? hostnameOf(host) : undefined;
  return hostname !== undefined && isLoopbackName(hostname);
};

/** An `Origin` of a page served from this machine (any port); `null` (sandboxed or file pages) is not one. */
export const isLoopbackOrigin = (origin: string) => {
  const m = /^(https?):\/\/([^/?#@]+)$/i.exec(origin);
  const hostname = m && HOST_HEADER.test(m[2]!) ? hostnameOf(m[2]!, m[1]!.toLowerCase()) : undefined;
  return hostname !== undefined && isLoopbackName(hostname);
};

/**
 * Verdicts on Host values seen lately: a client sends the same one on every request, and
 * parsing it as a URL each time cost a create ~2% of its CPU. Bounded: random Hosts only
 * churn it.
 */
const verdicts = new Map<string, boolean>();
const VERDICTS_KEPT = 256;
const isLoopbackHostSeen = (host: string) => {
  let verdict = verdicts.get(host);
  if (verdict === undefined) {
    verdict = isLoopbackHost(host);
    if (verdicts.size >= VERDICTS_KEPT) verdicts.clear();
    verdicts.set(host, verdict);
  }
  return verdict;
};

/** Why a request is refused in open mode, or undefined if it is served. */
const refusal = (req: Request) => {
  const host = req.get('host');
  // A browser always sends Host: a request without one (HTTP/1.0) is no rebound page.
  if (host !== undefined && !isLoopbackHostSeen(host)) {
    return (
      'no API keys are configured, so only requests addressed to a loopback name are served (Host 127.0.0.1, localhost, *.localhost or [::1]): ' +
      `use http://127.0.0.1:${req.socket.localPort ?? '<port>'}/, or configure api_keys to serve other names`
    );
  }
  const origin = req.get('origin');
  const navigation = (req.method === 'GET' || req.method === 'HEAD') && req.get('sec-fetch-mode') === 'navigate';
  const foreign = origin !== undefined ? !isLoopbackOrigin(origin) : req.get('sec-fetch-site') === 'cross-site' && !navigation;
  if (foreign) {
    return (
      'no API keys are configured, so requests from web pages of other origins are refused (Origin must be a loopback origin): ' +
      'open the page from this machine, or configure api_keys'
    );
  }
  return undefined;
};

/**
 * Open mode (no `api_keys`) trusts whoever reaches the loopback port, and a web page can reach
 * it too: by rebinding its own name to 127.0.0.1 (DNS rebinding) or by sending requests from
 * its origin (CSRF). Like local dev servers, serve only loopback Host names and refuse requests
 * from pages of other origins (`Origin`, or `Sec-Fetch-Site: cross-site` when there is none;
 * a plain link, a GET navigation, still opens). With keys, the keys are the defence.
 */
export const loopbackOnly = (req: Request, res: Response, next: NextFunction) => {
  const why = refusal(req);
  if (why) return sendError(res, { _tag: 'Forbidden', reason: why });
  next();
};
