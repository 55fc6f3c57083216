import { createHash } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { Scope, SCOPES } from '../config';
import { sendError } from './problem';
import { loopbackOnly } from './loopback-only';
import { isLoopbackAddress } from '../kernel/hosts';

export interface ApiKeyEntry {
  id: string;
  scopes: readonly Scope[];
  key?: string;
  key_sha256?: string;
}

export interface Caller {
  actor: string;
  scopes: ReadonlySet<Scope>;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

const servedToAll: RequestHandler = (_req, _res, next) => next();

/**
 * Bearer API keys with scopes. With no keys configured the service is open, but only to
 * loopback callers (src/main.ts also binds to loopback then) and, through `openModeGuard`, only to
 * requests that name this machine and come from no other site's page (src/http/loopback-only.ts).
 */
export const createAuth = (keys: readonly ApiKeyEntry[]) => {
  const byHash = new Map(keys.map((k) => [(k.key_sha256 ?? sha256(k.key ?? '')).toLowerCase(), k]));
  const open = keys.length === 0;
  const anonymous: Caller = { actor: 'anonymous', scopes: new Set<Scope>(SCOPES) };
  const callerOf = (req: Request): Caller | 'unauthenticated' | 'not-loopback' => {
    if (open) {
      return isLoopbackAddress(req.socket.remoteAddress ?? '') ? anonymous : 'not-loopback';
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
    const entry = match && byHash.get(sha256(match[1]!));
    return entry ? { actor: entry.id, scopes: new Set(entry.scopes) } : 'unauthenticated';
  };
  const requireScope =
    (scope: Scope): RequestHandler =>
    (req: Request, res: Response, next: NextFunction) => {
      const caller = callerOf(req);
      if (caller === 'unauthenticated') {
        res.set('WWW-Authenticate', 'Bearer');
        return sendError(res, { _tag: 'Unauthenticated' });
      }
      if (caller === 'not-loopback')
        return sendError(res, { _tag: 'Forbidden', reason: 'no API keys are configured: only loopback callers are served' });
      if (!caller.scopes.has(scope)) return sendError(res, { _tag: 'Forbidden', reason: `this API key lacks the scope ${scope}` });
      res.locals.caller = caller;
      next();
    };
  /** Mounted before every route but the health probes; nothing to do when keys are configured. */
  const openModeGuard = open ? loopbackOnly : servedToAll;
  return { open, requireScope, openModeGuard };
};

export const callerOf = (res: Response): Caller => res.locals.caller as Caller;
