import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { logScopeNow, withLogFields } from '../kernel/log-context';
import { tracer, tracingOn } from './tracing';

/**
 * Runs the rest of a request in its scope: its log lines carry `request_id`, and (tracing on) a
 * SERVER span, child of the caller's `traceparent` if it sent one, is the active span. Attributes
 * name the method, the route and the status: never the query string or a header value.
 */
export const requestScope = (req: Request, res: Response, next: NextFunction) => {
  if (!tracingOn()) return withLogFields({ request_id: String(res.locals.requestId) }, next);
  const parent = propagation.extract(context.active(), req.headers);
  const span = tracer().startSpan(
    req.method,
    {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': req.method, 'url.path': req.path },
    },
    parent,
  );
  res.once('finish', () => {
    // The route is known once a handler matched: `POST /api/signals`, `GET /api/signals/:id`.
    const route = req.route?.path as string | undefined;
    if (route) span.updateName(`${req.method} ${route}`).setAttribute('http.route', route);
    span.setAttribute('http.response.status_code', res.statusCode);
    if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
  res.once('close', () => {
    if (!res.writableFinished) span.end();
  });
  withLogFields({ request_id: String(res.locals.requestId) }, () => context.with(trace.setSpan(parent, span), next));
};

/**
 * A body parser calls `next` from the socket's events, outside the request's async scope: bound
 * here, the handlers after it run in the scope again (log fields, active span).
 */
export const keepScope =
  (handler: RequestHandler): RequestHandler =>
  (req, res, next) => {
    const inLogScope = logScopeNow();
    if (!tracingOn()) return handler(req, res, (err?: unknown) => inLogScope(() => next(err)));
    const active = context.active();
    return handler(req, res, (err?: unknown) => inLogScope(() => context.with(active, () => next(err))));
  };
