import type { Express } from 'express';
import { EventStore } from '../event-store/port';
import { mount, RouteGuards } from '../http/mount';
import { listEvents } from './feed';
import { EventStreams } from './stream';

/** The audit feed: `GET /api/events` (pages) and `GET /api/events/stream` (live, SSE), scope triggers:read. */
export const mountAuditRoutes = (app: Express, store: EventStore, streams: EventStreams, guards: RouteGuards) => {
  mount(app, '/api/events', { GET: { scope: 'triggers:read', handle: listEvents(store) } }, guards);
  mount(app, '/api/events/stream', { GET: { scope: 'triggers:read', handle: streams.handle } }, guards);
};
