import type { Express, Request, RequestHandler, Response } from 'express';
import { Scope } from '../config';
import { problem, sendProblem } from './problem';

type Handler = (req: Request, res: Response) => unknown;
type Routes = Record<string, { scope: Scope; handle: Handler }>;

/** Answers methods a path does not have with 405 and `Allow`, and OPTIONS with 204. */
const methodGuard = (allowed: string[]): RequestHandler => (req, res) => {
  const allow = [...allowed, ...(allowed.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', ');
  res.set('Allow', allow);
  if (req.method === 'OPTIONS') { res.status(204).end(); return; }
  sendProblem(res, problem(405, `${req.method} is not allowed here; allowed: ${allow}`));
};

export const mount = (app: Express, path: string, routes: Routes, requireScope: (s: Scope) => RequestHandler) => {
  const route = app.route(path);
  for (const [method, { scope, handle }] of Object.entries(routes)) {
    route[method.toLowerCase() as 'get'](requireScope(scope), handle);
  }
  route.all(methodGuard(Object.keys(routes)));
};

