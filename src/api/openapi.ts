/**
 * The OpenAPI 3.1 description of the HTTP API, for a server running with a given policy (the
 * config's brokers, URL patterns and timeouts), assembled from each feature's fragment beside its
 * routes. test/integration/http/openapi.test.ts checks that every route is described;
 * test/integration/http/schemathesis.test.ts checks the behaviour against it.
 */
import { TriggerPolicy } from '../model/triggers/policy';
import { json, jsonSchemas } from '../kernel/openapi';
import { PROBLEM_SCHEMA } from '../http/openapi-errors';
import { triggerSchemas } from '../triggers/openapi-schemas';
import { dryRunPaths, triggerPaths } from '../triggers/openapi';
import { dryRunSchemas } from '../triggers/dry-run-openapi';
import { signalPaths, signalSchemas } from '../signals/api/openapi';
import { redeliveryPaths, redeliverySchemas } from '../signals/redelivery/openapi';
import { dispatchPaths } from '../signals/dispatches/openapi';
import { cancelPaths, cancelSchemas } from '../signals/cancel/openapi';
import { eventPaths, eventSchemas } from '../audit/openapi';
import { metricsPaths, probePaths } from '../ops/openapi';
import { pacePaths, paceSchemas } from '../pacing/openapi';
import { alertPaths, alertSchemas, alertWebhooks } from '../alerts/openapi';
import { destinationComponents } from '../destinations/registry';

/** The document itself, the admin and the docs page: no API key needed. */
const publicPaths = {
  '/api/openapi.json': {
    get: {
      summary: 'This document',
      operationId: 'openapi',
      security: [],
      responses: { 200: { description: 'OpenAPI 3.1', content: json({ type: 'object' }) } },
    },
  },
  '/': {
    get: {
      summary: 'Redirects to the admin interface (/admin/)',
      operationId: 'root',
      security: [],
      responses: { 302: { description: 'To /admin/', headers: { Location: { schema: { type: 'string', const: '/admin/' } } } } },
    },
  },
  '/docs': {
    get: {
      summary: 'A page that renders this document',
      operationId: 'docs',
      security: [],
      responses: { 200: { description: 'HTML', content: { 'text/html': { schema: { type: 'string' } } } } },
    },
  },
  '/admin/config.json': {
    get: {
      summary: 'What the admin interface (/admin/) needs besides the API: where the Temporal UI is, and whether keys are required',
      operationId: 'adminConfig',
      security: [],
      responses: {
        200: {
          description: 'Settings',
          content: json({
            type: 'object',
            required: ['temporal_ui_url', 'namespace', 'keys_required'],
            properties: { temporal_ui_url: { type: 'string' }, namespace: { type: 'string' }, keys_required: { type: 'boolean' } },
          }),
        },
      },
    },
  },
};
/** The document a server running with `policy` serves; `/metrics` only where metrics are on. */
export const buildOpenApiDocument = (policy: TriggerPolicy, options: { metrics?: boolean } = {}) => ({
  openapi: '3.1.0',
  // Relative: the base URL is wherever the document was fetched from (client generators read it here).
  servers: [{ url: '/', description: 'this service' }],
  info: {
    title: 'action-triggers',
    version: '0.1.0',
    license: { name: 'MIT', identifier: 'MIT' },
    description:
      'Triggers bind model lifecycle signals to webhooks and broker messages. Every change is kept as an event. ' +
      'Every error is application/problem+json. A method a path does not have is 405 with Allow, on every path. ' +
      'A circuit breaker deactivates a trigger whose action failed every attempt of `breaker.consecutive_failures` consecutive dispatches ' +
      '(default 100), kept failing for `breaker.failing_for_hours` (default 120), or whose webhook answered 410 Gone: a TriggerDeactivated ' +
      "event by `system:circuit-breaker` with the reason, also shown as the trigger's `deactivated_reason`. " +
      'With no API keys configured, every path but /healthz and /readyz answers 403 to a request whose Host is not a loopback name ' +
      '(localhost, *.localhost, 127.x.x.x, [::1]) or that comes from a web page of another origin.',
  },
  components: {
    securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'API keys from the config, with scopes' } },
    schemas: {
      ...jsonSchemas(),
      ...triggerSchemas(policy),
      ...signalSchemas,
      Problem: PROBLEM_SCHEMA,
      ...destinationComponents(),
      ...dryRunSchemas(),
      ...redeliverySchemas,
      ...cancelSchemas,
      ...eventSchemas,
      ...paceSchemas,
      ...alertSchemas,
    },
  },
  security: [{ apiKey: [] }],
  paths: {
    ...triggerPaths,
    ...dryRunPaths,
    ...signalPaths,
    ...redeliveryPaths,
    ...cancelPaths,
    ...dispatchPaths,
    ...eventPaths,
    ...pacePaths,
    ...alertPaths,
    ...probePaths,
    ...publicPaths,
    ...(options.metrics ? metricsPaths : {}),
  },
  webhooks: alertWebhooks,
});
