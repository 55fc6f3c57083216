import type { Express } from 'express';
import { Scope } from '../config';
import { mount, RouteGuards } from '../http/mount';
import { TriggerDeps } from './deps';
import {
  createTrigger,
  deleteTrigger,
  deleteTriggers,
  getTrigger,
  listTriggers,
  patchTrigger,
  replaceTrigger,
  triggerHistory,
} from './routes';
import { dryRunStored, dryRunUnstored } from './dry-run';

export const mountTriggerRoutes = (app: Express, deps: TriggerDeps, guards: RouteGuards) => {
  const read: Scope = 'triggers:read';
  const write: Scope = 'triggers:write';
  mount(
    app,
    '/api/action-triggers',
    {
      GET: { scope: read, handle: listTriggers(deps) },
      POST: { scope: write, handle: createTrigger(deps) },
      PUT: { scope: write, handle: replaceTrigger(deps, 'body') },
      DELETE: { scope: write, handle: deleteTriggers(deps) },
    },
    guards,
  );
  // Before /:id: `test` is not a trigger id.
  mount(app, '/api/action-triggers/test', { POST: { scope: write, handle: dryRunUnstored(deps) } }, guards);
  mount(
    app,
    '/api/action-triggers/:id',
    {
      GET: { scope: read, handle: getTrigger(deps) },
      PUT: { scope: write, handle: replaceTrigger(deps, 'path') },
      PATCH: { scope: write, handle: patchTrigger(deps) },
      DELETE: { scope: write, handle: deleteTrigger(deps) },
    },
    guards,
  );
  mount(
    app,
    '/api/action-triggers/:id/history',
    {
      GET: { scope: read, handle: triggerHistory(deps) },
    },
    guards,
  );
  mount(app, '/api/action-triggers/:id/test', { POST: { scope: write, handle: dryRunStored(deps) } }, guards);
};
