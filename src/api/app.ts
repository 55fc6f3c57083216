import express, { Express, NextFunction, Request, RequestHandler, Response } from 'express';
import { randomUUID } from 'node:crypto';
import { Logger } from '../kernel/logger';
import { TriggerDeps } from '../triggers/deps';
import { ApiKeyEntry, createAuth } from '../http/auth';
import { methodGuard, RouteGuards } from '../http/mount';
import { sendError } from '../http/problem';
import { mountTriggerRoutes } from '../triggers/mount';
import { mountSignalRoutes, SignalDeps } from '../signals/api/routes';
import { mountRedeliveryRoutes } from '../signals/redelivery/routes';
import { mountCancelRoutes } from '../signals/cancel/routes';
import { mountDispatchRoutes } from '../signals/dispatches/routes';
import { buildOpenApiDocument } from './openapi';
import { TriggerPolicy } from '../model/triggers/policy';
import { DOCS_PAGE } from '../http/docs-page';
import { refuseUnsafeJson } from '../http/json-body';
import { keepScope, requestScope } from '../observability/request-scope';
import { STORE_RETRY_AFTER_SECS, StoreUnavailable, UnreadableEvent } from '../event-store/port';
import { READ_MODEL_RETRY_AFTER_SECS, ReadModelUnavailable } from '../projections/read-model';
import { mountAuditRoutes } from '../audit/mount';
import { mountPaceRoutes } from '../pacing/routes';
import { createAlertStreams, mountAlertRoutes, SinkView } from '../alerts/routes';
import { createEventStreams, EventStreams } from '../audit/stream';
import { Metrics, noMetrics } from '../observability/metrics';
import { httpMetrics } from '../observability/http-metrics';
import { mountMetricsRoute } from '../ops/metrics-route';
import { AdminSettings, mountAdmin } from '../http/admin';
import { readinessHandler, ReadinessDeps } from '../ops/readiness';
import { livenessHandler } from '../ops/liveness';

export interface AppDeps extends TriggerDeps, Omit<SignalDeps, 'log'>, Omit<ReadinessDeps, 'projection'> {
  readonly apiKeys: readonly ApiKeyEntry[];
  readonly maxBodyBytes: number;
  /** What the config allows; the OpenAPI document describes it (triggerInput checks it). */
  readonly policy: TriggerPolicy;
  readonly log: Logger;
  /** The audit feed's live streams (src/audit/stream.ts), so that shutdown can end them; default bounds otherwise. */
  readonly eventStreams?: EventStreams;
  /** The alerts feed's live streams, likewise. */
  readonly alertStreams?: EventStreams;
  /** The config's alert sinks as the API shows them (no secret). */
  readonly alertSinks?: readonly SinkView[];
  /** Default: none recorded, no `/metrics`. */
  readonly metrics?: Metrics;
  /** What `/admin/` is told; default: the local dev server's Temporal UI, namespace `default`. */
  readonly admin?: Omit<AdminSettings, 'keysRequired'>;
  /** How long this process's workflow code has been stuck in one call (src/ops/liveness.ts); default never. */
  readonly workflowStuckMs?: () => number;
}

const JSON_TYPES = ['application/json', 'application/*+json'];
const REQUEST_ID = /^[\w.:-]{1,128}$/;

const requestId = (req: Request, res: Response, next: NextFunction) => {
  const given = req.get('x-request-id');
  res.locals.requestId = given && REQUEST_ID.test(given) ? given : randomUUID();
  res.set('X-Request-Id', String(res.locals.requestId));
  next();
};

/** Bodies must be JSON: anything else that carries bytes is 415. */
const requireJson = (req: Request, res: Response, next: NextFunction) => {
  const length = Number(req.get('content-length') ?? '0');
  const hasBody = req.get('transfer-encoding') !== undefined || length > 0;
  if (hasBody && !req.is(JSON_TYPES))
    return sendError(res, { _tag: 'UnsupportedMediaType', detail: 'request bodies must be JSON (application/json)' });
  next();
};

/**
 * Maps body-parser and router errors to problems. Infrastructure faults the service recovers
 * from or an operator must fix (a damaged read model, a stored event this build cannot read)
 * are 503 with the reason; anything else is a bug, logged, 500.
 */
const errorHandler = (log: Logger) => (err: unknown, req: Request, res: Response, _next: NextFunction) => {
  const e = err as { status?: number; statusCode?: number; type?: string; message?: string };
  const status = e.status ?? e.statusCode;
  if (res.headersSent) return;
  if (e.type === 'entity.too.large') return sendError(res, { _tag: 'BodyTooLarge' });
  if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported')
    return sendError(res, { _tag: 'UnsupportedMediaType', detail: e.message ?? 'unsupported request body encoding' });
  if (e.type === 'entity.parse.failed') return sendError(res, { _tag: 'BodyNotJson' });
  if (typeof status === 'number' && status >= 400 && status < 500)
    return sendError(res, { _tag: 'BadRequest', status, detail: e.message ?? 'bad request' });
  if (err instanceof ReadModelUnavailable || err instanceof UnreadableEvent || err instanceof StoreUnavailable) {
    log.error('request failed on an infrastructure fault', { method: req.method, path: req.path, error: err.message });
    // A damaged read model is rebuilt within seconds, a store server is back as soon as it
    // restarts; an unreadable event needs an operator (no Retry-After).
    const retryAfterSecs =
      err instanceof ReadModelUnavailable
        ? READ_MODEL_RETRY_AFTER_SECS
        : err instanceof StoreUnavailable
          ? STORE_RETRY_AFTER_SECS
          : undefined;
    return sendError(res, { _tag: 'Unavailable', reason: err.message, ...(retryAfterSecs === undefined ? {} : { retryAfterSecs }) });
  }
  log.error('unhandled error', { method: req.method, path: req.path, error: String(err), stack: (err as Error)?.stack });
  sendError(res, { _tag: 'Internal' });
};

/** A GET path that needs no key; other methods get 405 with `Allow`, as on the API paths. */
const publicGet = (app: Express, path: string, handle: RequestHandler) => {
  app
    .route(path)
    .get(handle)
    .all(methodGuard(['GET']));
};

/** Builds the HTTP app; never listens (src/main.ts does, tests use supertest). */
export const buildApp = (deps: AppDeps) => {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.use(requestId, requestScope);
  const metrics = deps.metrics ?? noMetrics;
  if (metrics.enabled) app.use(httpMetrics(metrics));
  const auth = createAuth(deps.apiKeys);
  // Mounted per route after the scope check (src/http/mount.ts): a refused request's body is never read;
  // a parsed one is then checked for nesting depth and prototype keys.
  const parseJsonBody = [
    requireJson,
    keepScope(express.json({ type: JSON_TYPES, limit: deps.maxBodyBytes, strict: false })),
    refuseUnsafeJson,
  ];
  const guards: RouteGuards = { requireScope: auth.requireScope, parseJsonBody };

  publicGet(app, '/healthz', livenessHandler(deps.workflowStuckMs));
  publicGet(app, '/readyz', readinessHandler(deps));
  // Probes come by IP or service name; they carry no data. Everything else is guarded in open mode.
  app.use(auth.openModeGuard);
  const openApiJson = JSON.stringify(buildOpenApiDocument(deps.policy, { metrics: metrics.enabled }));
  publicGet(app, '/api/openapi.json', (_req, res) => {
    res.type('json').send(openApiJson);
  });
  publicGet(app, '/docs', (_req, res) => {
    res.type('html').send(DOCS_PAGE);
  });
  // A browser pointed at the service's address lands on the admin interface.
  publicGet(app, '/', (_req, res) => {
    res.redirect(302, '/admin/');
  });
  mountMetricsRoute(app, metrics, auth.requireScope);
  mountAdmin(app, { temporalUiUrl: 'http://127.0.0.1:8233', namespace: 'default', ...deps.admin, keysRequired: !auth.open });

  mountTriggerRoutes(app, deps, guards);
  mountSignalRoutes(app, deps, guards);
  mountRedeliveryRoutes(app, deps, guards);
  mountCancelRoutes(app, { ...deps, metrics }, guards);
  mountDispatchRoutes(app, deps, guards);
  mountAuditRoutes(app, deps.store, deps.eventStreams ?? createEventStreams(deps.store, deps.log), guards);
  // The limits listed are the ones the dry run plans with: today's config.
  mountPaceRoutes(app, { store: deps.store, destinations: deps.preview.planning.destinations, now: deps.now }, guards);
  const alertStreams = deps.alertStreams ?? createAlertStreams(deps.store, deps.log);
  mountAlertRoutes(app, { store: deps.store, streams: alertStreams, sinks: deps.alertSinks ?? [] }, guards);

  app.use((req, res) => sendError(res, { _tag: 'NoRoute', method: req.method, path: req.path }));
  app.use(errorHandler(deps.log));
  return app;
};
