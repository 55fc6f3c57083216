import type { NextFunction, Request, Response } from 'express';
import { Metrics, secondsSince } from './metrics';

/** Requests no route matched (404s to random paths): one series, whatever the path. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Counts every request by its route template (`/api/action-triggers/:id`), read when the answer
 * is sent: express has matched the route by then. Never the raw path, so ids and random paths
 * add no series.
 */
export const httpMetrics = (metrics: Metrics) => (req: Request, res: Response, next: NextFunction) => {
  const start = process.hrtime.bigint();
  res.once('finish', () => {
    const template = (req.route as { path?: unknown } | undefined)?.path;
    const route = typeof template === 'string' ? `${req.baseUrl}${template}` : UNMATCHED_ROUTE;
    metrics.httpRequest(route, req.method, res.statusCode, secondsSince(start));
  });
  next();
};
