import type { Express } from 'express';
import { EventStore } from '../event-store/port';
import { Logger } from '../logger';
import { mount, RouteGuards } from '../http/mount';
import { listEvents } from './feed';
import { createEventStreams, EVENT_STREAM_DEFAULTS, EventStreamOptions } from './stream';

/** The audit feed: `GET /api/events` (pages) and `GET /api/events/stream` (live, SSE), scope triggers:read. */
export const mountAuditRoutes = (app: Express, store: EventStore, log: Logger, guards: RouteGuards,
  options: EventStreamOptions = EVENT_STREAM_DEFAULTS) => {
  const streams = createEventStreams(store, log, options);
  mount(app, '/api/events', { GET: { scope: 'triggers:read', handle: listEvents(store) } }, guards);
  mount(app, '/api/events/stream', { GET: { scope: 'triggers:read', handle: streams.handle } }, guards);
  return streams;
};
