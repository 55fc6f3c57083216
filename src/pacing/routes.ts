import type { Express, Request, Response } from 'express';
import type { EventStore } from '../event-store/port';
import type { DestinationSettings } from '../destinations/registry';
import { mount, RouteGuards } from '../http/mount';
import { destinationPaces } from './destination-paces';

export interface PaceRouteDeps {
  readonly store: EventStore;
  /** The config's destinations: the limits listed are today's config's. */
  readonly destinations: DestinationSettings;
  readonly now: () => Date;
}

/**
 * `GET /api/destinations/limits`, scope triggers:read: every limit the config sets and its pace
 * now. A store that cannot be read throws, and the app's error handler answers 503 with why.
 */
export const mountPaceRoutes = (app: Express, deps: PaceRouteDeps, guards: RouteGuards) => {
  const list = async (_req: Request, res: Response) => {
    const limits = await destinationPaces(deps.store, deps.destinations, deps.now().getTime());
    res.status(200).json({ limits });
  };
  mount(app, '/api/destinations/limits', { GET: { scope: 'triggers:read', handle: list } }, guards);
};
