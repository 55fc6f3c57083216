import type { Express, Request, Response } from 'express';
import type { EventStore } from '../event-store/port';
import type { Logger } from '../kernel/logger';
import { mount, RouteGuards } from '../http/mount';
import { sendError } from '../http/problem';
import { listEvents } from '../audit/feed';
import { createEventStreams, EventStreams } from '../audit/stream';
import { ALERTS, recentAlerts } from './feed';

/** The live alerts streams of a process (ended on shutdown, as the audit feed's are). */
export const createAlertStreams = (store: EventStore, log: Logger) => createEventStreams(store, log, {}, ALERTS);

/** A sink as the API shows it: never a secret, a credential or a URL's path (a Slack URL's path is its token). */
export interface SinkView {
  name: string;
  type: 'webhook' | 'slack' | 'email';
  /** Scheme and host of a URL; an SMTP server's host and port. */
  target: string;
  /** Email: the addresses it sends to. */
  to?: readonly string[];
  events: readonly string[];
  max_per_minute: number;
}

export interface AlertRouteDeps {
  readonly store: EventStore;
  readonly streams: EventStreams;
  readonly sinks: readonly SinkView[];
}

const RECENT_DEFAULT = 50;
const RECENT_MAX = 200;

/**
 * The alerts, scope triggers:read: `GET /api/alerts` (pages, as the audit feed), `GET
 * /api/alerts/stream` (live, SSE), and `GET /api/alerts/recent` (the sinks, the last alerts and
 * what each sink made of them: the admin's page).
 */
export const mountAlertRoutes = (app: Express, deps: AlertRouteDeps, guards: RouteGuards) => {
  const recent = async (req: Request, res: Response) => {
    const unknown = Object.keys(req.query).filter((k) => k !== 'limit');
    const text = req.query.limit;
    const limit = text === undefined ? RECENT_DEFAULT : Number(text);
    if (unknown.length > 0 || typeof (text ?? '') !== 'string' || !Number.isInteger(limit) || limit < 1 || limit > RECENT_MAX) {
      const errors = unknown.length
        ? unknown.map((k) => ({ path: `query.${k}`, message: 'is not a known parameter (limit)' }))
        : [{ path: 'query.limit', message: `must be a whole number from 1 to ${RECENT_MAX}` }];
      return sendError(res, { _tag: 'Validation', errors });
    }
    const { alerts, lastBySink } = await recentAlerts(deps.store, limit);
    const sinks = deps.sinks.map((s) => {
      const last = lastBySink.get(s.name);
      return { ...s, ...(last ? { last_outcome: last } : {}) };
    });
    res.status(200).json({ sinks, alerts });
  };
  mount(app, '/api/alerts', { GET: { scope: 'triggers:read', handle: listEvents(deps.store, ALERTS) } }, guards);
  mount(app, '/api/alerts/stream', { GET: { scope: 'triggers:read', handle: deps.streams.handle } }, guards);
  mount(app, '/api/alerts/recent', { GET: { scope: 'triggers:read', handle: recent } }, guards);
};
