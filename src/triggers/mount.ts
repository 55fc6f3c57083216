import type { Express, Request, RequestHandler, Response } from 'express';
import { Scope } from '../config';
import { problem, sendProblem } from '../http/problem';
import { TriggerDeps } from './deps';
import {
  createTrigger, deleteTrigger, deleteTriggers, getTrigger, listTriggers, patchTrigger, replaceTrigger, triggerHistory,
} from './routes';

type Handler = (req: Request, res: Response) => unknown;
type Routes = Record<string, { scope: Scope; handle: Handler }>;

/** Answers methods a path does not have with 405 and `Allow`, and OPTIONS with 204. */
const methodGuard = (allowed: string[]): RequestHandler => (req, res) => {
  const allow = [...allowed, ...(allowed.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', ');
  res.set('Allow', allow);
  if (req.method === 'OPTIONS') { res.status(204).end(); return; }
  sendProblem(res, problem(405, `${req.method} is not allowed here; allowed: ${allow}`));
};

const mount = (app: Express, path: string, routes: Routes, requireScope: (s: Scope) => RequestHandler) => {
  const route = app.route(path);
  for (const [method, { scope, handle }] of Object.entries(routes)) {
    route[method.toLowerCase() as 'get'](requireScope(scope), handle);
  }
  route.all(methodGuard(Object.keys(routes)));
};

export const mountTriggerRoutes = (app: Express, deps: TriggerDeps, requireScope: (s: Scope) => RequestHandler) => {
  const read: Scope = 'triggers:read';
  const write: Scope = 'triggers:write';
  mount(app, '/api/action-triggers', {
    GET: { scope: read, handle: listTriggers(deps) },
    POST: { scope: write, handle: createTrigger(deps) },
    PUT: { scope: write, handle: replaceTrigger(deps, 'body') },
    DELETE: { scope: write, handle: deleteTriggers(deps) },
  }, requireScope);
  mount(app, '/api/action-triggers/:id', {
    GET: { scope: read, handle: getTrigger(deps) },
    PUT: { scope: write, handle: replaceTrigger(deps, 'path') },
    PATCH: { scope: write, handle: patchTrigger(deps) },
    DELETE: { scope: write, handle: deleteTrigger(deps) },
  }, requireScope);
  mount(app, '/api/action-triggers/:id/history', {
    GET: { scope: read, handle: triggerHistory(deps) },
  }, requireScope);
};
