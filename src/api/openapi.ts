/**
 * The OpenAPI 3.1 description of the HTTP API, for a server running with a given policy (the
 * config's brokers, URL patterns and timeouts). test/integration/http/openapi.test.ts checks that
 * every route is described; test/integration/http/schemathesis.test.ts checks the behaviour against it.
 */
import { TriggerPolicy } from '../model/triggers/policy';
import { CURSOR, DEFAULT_LIMIT, MAX_LIMIT, MAX_Q_LENGTH } from '../triggers/list-query';
import { MAX_IDS, MAX_QUERY_IDS } from '../triggers/delete-query';
import { DEFAULT_HISTORY_PAGE, MAX_HISTORY_AFTER, MAX_HISTORY_PAGE } from '../triggers/history-query';
import { SIGNALS } from '../model/triggers/codecs';
import { componentSchemas, CONTENT_TYPE_PART, json, problemResponse, ref, SIGNAL_ID_SCHEMA, TRIGGER_ID_SCHEMA } from './openapi-schemas';
import { IF_MATCH } from '../http/request';
import { redeliveryPaths, redeliverySchemas } from './openapi-redelivery';
import { dispatchPaths, signalListGet } from './openapi-dispatches';
import { asOfParameter, eventPaths, eventSchemas } from './openapi-events';

const idParam = { name: 'id', in: 'path', required: true, schema: TRIGGER_ID_SCHEMA };
const body = (name: string) => ({ required: true, content: json(ref(name)) });
const etag = { ETag: { schema: { type: 'string' }, description: 'The trigger version, quoted' } };
const triggerResponse = (description: string) => ({ description, headers: etag, content: json(ref('Trigger')) });
const ifMatch = {
  name: 'If-Match',
  in: 'header',
  required: false,
  schema: { type: 'string', pattern: IF_MATCH },
  description: 'The ETag last seen ("3" or W/"3"), or * for "any live version"; a mismatch is 412 and changes nothing.',
};
const errors = {
  400: problemResponse('Invalid input; `errors` names each field path'),
  401: problemResponse('Missing or unknown API key'),
  403: problemResponse(
    'The API key lacks the scope; with no API keys configured, the request named a non-loopback Host or came from a web page of another origin',
  ),
};
const writeErrors = {
  ...errors,
  409: problemResponse('The trigger changed concurrently too often; try again'),
  413: problemResponse('Body over the size limit'),
  415: problemResponse('Body is not JSON'),
  503: problemResponse(
    "An infrastructure fault: a stored event of this trigger cannot be read (needs an operator), the read model is being rebuilt, the event store's server is away, or the store cannot write (its write lock held by another process for 10 s, a full disk, an I/O error; the last three with Retry-After)",
  ),
};
const conditional = { 404: problemResponse('Unknown or deleted trigger'), 412: problemResponse('If-Match names another version') };
const ids = (maxItems: number) => ({ type: 'array', minItems: 1, maxItems, items: TRIGGER_ID_SCHEMA });

const triggerPaths = {
  '/api/action-triggers': {
    get: {
      summary: 'List triggers',
      operationId: 'listTriggers',
      parameters: [
        { name: 'active', in: 'query', schema: { type: 'boolean' } },
        { name: 'signal', in: 'query', schema: { enum: [...SIGNALS] } },
        { name: 'app_label', in: 'query', schema: CONTENT_TYPE_PART },
        { name: 'model_name', in: 'query', schema: CONTENT_TYPE_PART },
        {
          name: 'q',
          in: 'query',
          schema: { type: 'string', minLength: 1, maxLength: MAX_Q_LENGTH },
          description: 'Text (any case) found in a content type (`app_label.model_name`) or a webhook URL',
        },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT } },
        { name: 'cursor', in: 'query', schema: { type: 'string', pattern: CURSOR }, description: "From the previous page's Link header" },
      ],
      responses: {
        200: {
          description: 'Triggers in creation order',
          headers: { Link: { schema: { type: 'string' }, description: '<…>; rel="next" when more follow' } },
          content: json({ type: 'array', items: ref('Trigger') }),
        },
        ...errors,
      },
    },
    post: {
      summary: 'Create a trigger',
      operationId: 'createTrigger',
      requestBody: body('TriggerInput'),
      responses: { 201: { ...triggerResponse('Created'), headers: { ...etag, Location: { schema: { type: 'string' } } } }, ...writeErrors },
    },
    put: {
      summary: "Replace the trigger named by the body's id",
      operationId: 'replaceTriggerById',
      requestBody: body('TriggerReplacement'),
      parameters: [ifMatch],
      responses: { 200: triggerResponse('Replaced'), ...writeErrors, ...conditional },
    },
    delete: {
      summary: 'Delete several triggers named by ?id=a&id=b and/or {"ids": [...]}; all must exist. Naming none deletes nothing.',
      operationId: 'deleteTriggers',
      parameters: [{ name: 'id', in: 'query', schema: ids(MAX_QUERY_IDS), style: 'form', explode: true }],
      requestBody: {
        required: false,
        content: json({ type: 'object', additionalProperties: false, required: ['ids'], properties: { ids: ids(MAX_IDS) } }),
      },
      responses: { 204: { description: 'Deleted' }, ...writeErrors, 404: problemResponse('Some ids are unknown; nothing was deleted') },
    },
  },
  '/api/action-triggers/{id}': {
    parameters: [idParam],
    get: {
      summary: 'Get one trigger',
      operationId: 'getTrigger',
      parameters: [asOfParameter],
      responses: { 200: triggerResponse('The trigger'), ...errors, 404: problemResponse('Unknown or deleted') },
    },
    put: {
      summary: 'Replace a trigger',
      operationId: 'replaceTrigger',
      parameters: [ifMatch],
      requestBody: body('TriggerInput'),
      responses: { 200: triggerResponse('Replaced'), ...writeErrors, ...conditional },
    },
    patch: {
      summary: 'Change some fields (JSON merge patch over the definition; the result is validated as a whole)',
      operationId: 'patchTrigger',
      description:
        '`{"active": true}` reactivates a trigger, also one the circuit breaker deactivated: its `deactivated_reason` goes and its failures count from zero again.',
      parameters: [ifMatch],
      requestBody: {
        required: true,
        content: { 'application/merge-patch+json': { schema: ref('TriggerPatch') }, ...json(ref('TriggerPatch')) },
      },
      responses: { 200: triggerResponse('Patched'), ...writeErrors, ...conditional },
    },
    delete: {
      summary: 'Delete a trigger (its history stays)',
      operationId: 'deleteTrigger',
      parameters: [ifMatch],
      responses: { 204: { description: 'Deleted' }, ...writeErrors, ...conditional },
    },
  },
  '/api/action-triggers/{id}/history': {
    parameters: [idParam],
    get: {
      summary: "A page of a trigger's events, oldest first, also after deletion",
      operationId: 'triggerHistory',
      description:
        'At most `limit` events after version `after`, and at most 4 MiB of JSON (always at least one event). ' +
        'Follow the `Link` header for the next page. After the last version the answer is `[]`: nothing newer yet.',
      parameters: [
        {
          name: 'after',
          in: 'query',
          schema: { type: 'integer', minimum: 0, maximum: MAX_HISTORY_AFTER, default: 0 },
          description: 'The last version already seen: the page starts at the version after it',
        },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: MAX_HISTORY_PAGE, default: DEFAULT_HISTORY_PAGE } },
      ],
      responses: {
        200: {
          description: 'Events',
          headers: {
            Link: {
              schema: { type: 'string' },
              description: '<…?after=N>; rel="next" when more events follow (the other parameters kept)',
            },
          },
          content: json({ type: 'array', items: ref('TriggerEvent') }),
        },
        ...errors,
        404: problemResponse('Unknown trigger'),
      },
    },
  },
};

const DRY_RUN =
  'Sends nothing: every request and message the trigger would send for the signal, as a dispatch renders them, ' +
  'dynamic values shown as their {{ path }}; with each refusal (SSRF guard, …) and rendering warning';
const dryRunResponses = {
  200: { description: 'What a dispatch would send', content: json(ref('DryRun')) },
  ...errors,
  413: problemResponse('Body over the size limit'),
  415: problemResponse('Body is not JSON'),
};

const dryRunPaths = {
  '/api/action-triggers/test': {
    post: {
      summary: `Dry run of a trigger body (checked as on create, never stored). ${DRY_RUN}`,
      operationId: 'dryRunTriggerBody',
      requestBody: body('UnstoredDryRunRequest'),
      responses: dryRunResponses,
    },
  },
  '/api/action-triggers/{id}/test': {
    parameters: [idParam],
    post: {
      summary: `Dry run of a stored trigger at its current version. ${DRY_RUN}`,
      operationId: 'dryRunTrigger',
      requestBody: body('DryRunRequest'),
      responses: { ...dryRunResponses, 404: problemResponse('Unknown or deleted trigger') },
    },
  },
};

const signalPaths = {
  '/api/signals': {
    get: signalListGet,
    post: {
      summary:
        'Emit one signal or an array; each is stored (202 once durable), then dispatched by a workflow (the same id never twice); Temporal need not be up',
      operationId: 'emitSignals',
      requestBody: body('SignalBatch'),
      responses: {
        202: {
          description: 'Accepted: one object, or an array for an array',
          content: json({ oneOf: [ref('SignalAccepted'), { type: 'array', items: ref('SignalAccepted') }] }),
        },
        ...writeErrors,
        422: problemResponse('A signal would start more than 500 actions (`errors` names it); nothing was accepted'),
        503: problemResponse('The signal store failed: `signals` lists which ids were accepted; retry with the same ids'),
      },
    },
  },
  '/api/signals/{id}': {
    parameters: [{ name: 'id', in: 'path', required: true, schema: SIGNAL_ID_SCHEMA }],
    get: {
      summary: 'Dispatch state and per-action outcomes',
      operationId: 'signalStatus',
      responses: {
        200: { description: 'The dispatch', content: json(ref('Dispatch')) },
        ...errors,
        404: problemResponse('Unknown signal (or past the retention window)'),
        503: problemResponse('Temporal unreachable (for a signal already dispatched)'),
      },
    },
  },
};

const publicPaths = {
  '/healthz': {
    get: {
      summary:
        "Liveness: alive unless workflow code of this process's worker has run for over 5 s in one call (then every workflow of the worker waits: restart the process)",
      operationId: 'healthz',
      security: [],
      responses: {
        200: { description: 'Alive', content: json({ type: 'object', required: ['status'], properties: { status: { const: 'ok' } } }) },
        503: {
          description: 'Stuck',
          content: json({
            type: 'object',
            required: ['status', 'reason'],
            properties: { status: { const: 'stuck' }, reason: { type: 'string' } },
          }),
        },
      },
    },
  },
  '/readyz': {
    get: {
      summary:
        'Readiness: the read model caught up with a reachable event store (a store server that is away or silent makes it not ready, `reasons` says why). ' +
        'Temporal being away does not make the API unready (signals are stored); `dispatch` says so, with the backlog. ' +
        'Answers within a second whatever Temporal or the store does: `dispatch` is the last value learned in the background, `age_ms` old',
      operationId: 'readyz',
      security: [],
      responses: Object.fromEntries(
        [
          [200, 'Ready'],
          [503, 'Not ready'],
        ].map(([status, description]) => [
          status,
          {
            description,
            content: json({
              type: 'object',
              required: ['status', 'checks'],
              properties: {
                status: { enum: ['ready', 'not ready'] },
                checks: { type: 'object', additionalProperties: { type: 'boolean' } },
                reasons: { type: 'object', additionalProperties: { type: 'string' } },
                dispatch: {
                  type: 'object',
                  properties: {
                    temporal: {
                      enum: ['reachable', 'unreachable', 'unknown'],
                      description: '`unknown` until the first check, under way, has answered',
                    },
                    age_ms: { type: 'integer', description: 'How long ago the check that learned these values started' },
                    error: { type: 'string', description: 'Why the last check failed (it is retried on the next probe)' },
                    backlog: { type: 'integer', description: 'Signals stored whose dispatch the relay has not started yet' },
                    relay: { type: 'string', description: 'Present when this process holds the relay lease' },
                    relay_waiting_on: { type: 'string' },
                  },
                },
                signal_index: {
                  type: 'object',
                  required: ['caught_up'],
                  description: 'The index behind GET /api/signals; informational (intake does not need it)',
                  properties: {
                    caught_up: { type: 'boolean' },
                    failure: { type: 'string', description: 'Why it stopped at an event (it retries)' },
                  },
                },
              },
            }),
          },
        ]),
      ),
    },
  },
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

const metricsPaths = {
  '/metrics': {
    get: {
      summary: 'Prometheus metrics of this process (of every API process with API_PROCESSES>1); needs the scope metrics:read',
      operationId: 'metrics',
      responses: {
        200: { description: 'Prometheus text format 0.0.4', content: { 'text/plain': { schema: { type: 'string' } } } },
        401: errors[401],
        403: errors[403],
        503: problemResponse('With API_PROCESSES>1: the processes did not all answer in time'),
      },
    },
  },
};

/** The document a server running with `policy` serves; `/metrics` only where metrics are on. */
export const buildOpenApiDocument = (policy: TriggerPolicy, options: { metrics?: boolean } = {}) => ({
  openapi: '3.1.0',
  info: {
    title: 'action-triggers',
    version: '0.1.0',
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
    schemas: { ...componentSchemas(policy), ...redeliverySchemas, ...eventSchemas },
  },
  security: [{ apiKey: [] }],
  paths: {
    ...triggerPaths,
    ...dryRunPaths,
    ...signalPaths,
    ...redeliveryPaths,
    ...dispatchPaths,
    ...eventPaths,
    ...publicPaths,
    ...(options.metrics ? metricsPaths : {}),
  },
});
