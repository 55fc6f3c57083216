import type { Express, Request, RequestHandler, Response } from 'express';
import { Scope } from '../config';
import { sendError } from './problem';

type Handler = (req: Request, res: Response) => unknown;
type Routes = Record<string, { scope: Scope; handle: Handler }>;

/** What runs before a route's handler, in order: authentication with the scope, then the body. */
export interface RouteGuards {
  readonly requireScope: (scope: Scope) => RequestHandler;
  /** Reads and parses a JSON body; only after requireScope, so a refused body is never read. */
  readonly parseJsonBody: readonly RequestHandler[];
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Answers methods a path does not have with 405 and `Allow`, and OPTIONS with 204. */
export const methodGuard =
  (allowed: readonly string[]): RequestHandler =>
  (req, res) => {
    const allow = [...allowed, ...(allowed.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', ');
    res.set('Allow', allow);
    if (req.method === 'OPTIONS') {
      res.status(204).end();
      return;
    }
    sendError(res, { _tag: 'MethodNotAllowed', method: req.method, allow });
  };

export const mount = (app: Express, path: string, routes: Routes, guards: RouteGuards) => {
  const route = app.route(path);
  for (const [method, { scope, handle }] of Object.entries(routes)) {
    const body = BODY_METHODS.has(method) ? guards.parseJsonBody : [];
    route[method.toLowerCase() as 'get'](guards.requireScope(scope), ...body, handle);
  }
  route.all(methodGuard(Object.keys(routes)));
};
