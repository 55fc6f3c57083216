/**
 * The OpenAPI 3.1 description of the HTTP API. test/integration/openapi.test.ts checks that
 * every route the app serves is described here and that examples decode.
 */
import { MAX_CONTENT_TYPE_PART } from '../triggers/codecs';

const stringMap = { type: 'object', additionalProperties: { type: 'string' } };
const CONTENT_TYPE_PART = { type: 'string', minLength: 1, maxLength: MAX_CONTENT_TYPE_PART };
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const problemResponse = (description: string) => ({ description, content: { 'application/problem+json': { schema: ref('Problem') } } });
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };
const triggerBody = { required: true, content: { 'application/json': { schema: ref('TriggerInput') } } };
const triggerResponse = (description: string) => ({
  description, headers: { ETag: { schema: { type: 'string' }, description: 'The trigger version, quoted' } },
  content: { 'application/json': { schema: ref('Trigger') } },
});
const ifMatch = { name: 'If-Match', in: 'header', required: false, schema: { type: 'string' },
  description: 'The ETag last seen; a mismatch is 412 and changes nothing.' };
const errors = {
  400: problemResponse('Invalid input; `errors` names each field path'),
  401: problemResponse('Missing or unknown API key'),
  403: problemResponse('The API key lacks the scope'),
};
const writeErrors = { ...errors, 413: problemResponse('Body over the size limit'), 415: problemResponse('Body is not JSON') };

const triggerFields = {
  config_signals: { type: 'array', minItems: 1, items: { type: 'object', additionalProperties: false, required: ['signal'],
    properties: { signal: { enum: ['pre_save', 'post_save', 'pre_delete', 'post_delete'] } } } },
  content_types: { type: 'array', minItems: 1, items: { type: 'object', additionalProperties: false,
    required: ['app_label', 'model_name'], properties: { app_label: CONTENT_TYPE_PART, model_name: CONTENT_TYPE_PART } } },
  webhooks: { type: 'array', items: { type: 'object', additionalProperties: false, required: ['url', 'http_method'], properties: {
    url: { type: 'string', format: 'uri', maxLength: 2048 },
    http_method: { enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], description: 'Case-insensitive on input' },
    headers: { ...stringMap, description: 'Values may hold {{ dynamic.value }} expressions, resolved at delivery' },
    timeout_secs: { type: 'number', exclusiveMinimum: 0, description: 'At most limits.max_webhook_timeout_secs; default limits.default_timeout_secs' } } } },
  msg_broker_queues: { type: 'array', items: { type: 'object', additionalProperties: false, required: ['name'], properties: {
    name: { type: 'string', description: 'A broker named in the config (brokers)' },
    conn_details: stringMap, parameters: stringMap,
    timeout_secs: { type: 'number', exclusiveMinimum: 0 } } } },
  active: { type: 'boolean' },
  payload: { description: 'Any JSON value; strings may hold {{ instance.attr }} and allow-listed {{ dynamic.value }} expressions' },
};
const serverFields = {
  id: { type: 'string', format: 'uuid', readOnly: true },
  version: { type: 'integer', readOnly: true },
  created_at: { type: 'string', format: 'date-time', readOnly: true },
  updated_at: { type: 'string', format: 'date-time', readOnly: true },
};

export const openApiDocument = {
  openapi: '3.1.0',
  info: { title: 'action-triggers', version: '0.1.0',
    description: 'Triggers bind model lifecycle signals to webhooks and broker messages. Every change is kept as an event.' },
  components: {
    securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'API keys from the config, with scopes' } },
    schemas: {
      TriggerInput: { type: 'object', additionalProperties: false, required: ['config_signals', 'content_types', 'active'],
        properties: { ...triggerFields, ...serverFields } },
      Trigger: { type: 'object', required: ['id', 'config_signals', 'content_types', 'webhooks', 'msg_broker_queues', 'active', 'version', 'created_at', 'updated_at'],
        properties: { ...serverFields, ...triggerFields } },
      TriggerEvent: { type: 'object', required: ['type', 'version', 'data', 'metadata'], properties: {
        type: { enum: ['TriggerCreated', 'TriggerUpdated', 'TriggerActivated', 'TriggerDeactivated', 'TriggerDeleted'] },
        version: { type: 'integer' }, data: { type: 'object' },
        metadata: { type: 'object', properties: { actor: { type: 'string' }, request_id: { type: 'string' }, occurred_at: { type: 'string', format: 'date-time' } } } } },
      Signal: { type: 'object', additionalProperties: false, required: ['signal', 'app_label', 'model_name', 'instance'], properties: {
        id: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$', description: 'Client-chosen; makes emission idempotent. Default: a new UUIDv7' },
        signal: { enum: ['pre_save', 'post_save', 'pre_delete', 'post_delete'] },
        app_label: CONTENT_TYPE_PART, model_name: CONTENT_TYPE_PART,
        instance: { type: 'object', description: 'The instance\'s attributes, read by {{ instance.… }}' },
        occurred_at: { type: 'string', format: 'date-time' } } },
      SignalAccepted: { type: 'object', required: ['id', 'workflow_id', 'duplicate'], properties: {
        id: { type: 'string' }, workflow_id: { type: 'string' }, duplicate: { type: 'boolean', description: 'This id was accepted before; nothing new started' } } },
      Dispatch: { type: 'object', required: ['id', 'workflow_id', 'state', 'triggers', 'actions'], properties: {
        id: { type: 'string' }, workflow_id: { type: 'string' },
        state: { type: 'string', description: 'matching, running, completed (or Temporal\'s terminated, timed_out, …)' },
        triggers: { type: 'array', items: { type: 'object', properties: { trigger_id: { type: 'string' }, version: { type: 'integer' } } } },
        actions: { type: 'array', items: { type: 'object', required: ['delivery_id', 'trigger_id', 'kind', 'state', 'attempts'], properties: {
          delivery_id: { type: 'string', description: 'Sent as webhook-id and as the AMQP messageId' },
          trigger_id: { type: 'string' }, version: { type: 'integer' }, kind: { enum: ['webhook', 'broker'] }, index: { type: 'integer' },
          state: { enum: ['pending', 'retrying', 'delivered', 'failed'] }, attempts: { type: 'integer' },
          status_code: { type: 'integer' }, last_error: { type: 'string' }, warnings: { type: 'array', items: { type: 'string' } } } } } } },
      Problem: { type: 'object', required: ['type', 'title', 'status'], properties: {
        type: { type: 'string' }, title: { type: 'string' }, status: { type: 'integer' }, detail: { type: 'string' },
        errors: { type: 'array', items: { type: 'object', required: ['path', 'message'], properties: { path: { type: 'string' }, message: { type: 'string' } } } } } },
    },
  },
  security: [{ apiKey: [] }],
  paths: {
    '/api/action-triggers': {
      get: { summary: 'List triggers', operationId: 'listTriggers', parameters: [
        { name: 'active', in: 'query', schema: { type: 'boolean' } },
        { name: 'signal', in: 'query', schema: { enum: ['pre_save', 'post_save', 'pre_delete', 'post_delete'] } },
        { name: 'app_label', in: 'query', schema: { type: 'string' } },
        { name: 'model_name', in: 'query', schema: { type: 'string' } },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } },
        { name: 'cursor', in: 'query', schema: { type: 'string' }, description: 'From the previous page\'s Link header' }],
        responses: { 200: { description: 'Triggers in creation order', headers: { Link: { schema: { type: 'string' }, description: '<…>; rel="next" when more follow' } },
          content: { 'application/json': { schema: { type: 'array', items: ref('Trigger') } } } }, ...errors } },
      post: { summary: 'Create a trigger', operationId: 'createTrigger', requestBody: triggerBody,
        responses: { 201: { ...triggerResponse('Created'), headers: { Location: { schema: { type: 'string' } }, ETag: { schema: { type: 'string' } } } }, ...writeErrors } },
      put: { summary: 'Replace the trigger named by the body\'s id', operationId: 'replaceTriggerById', requestBody: triggerBody, parameters: [ifMatch],
        responses: { 200: triggerResponse('Replaced'), ...writeErrors, 404: problemResponse('Unknown trigger'), 412: problemResponse('If-Match mismatch') } },
      delete: { summary: 'Delete several triggers: ?id=a&id=b or {"ids": [...]}; all must exist', operationId: 'deleteTriggers',
        parameters: [{ name: 'id', in: 'query', schema: { type: 'array', items: { type: 'string', format: 'uuid' } }, style: 'form', explode: true }],
        requestBody: { required: false, content: { 'application/json': { schema: { type: 'object', additionalProperties: false, properties: { ids: { type: 'array', items: { type: 'string', format: 'uuid' } } } } } } },
        responses: { 204: { description: 'Deleted' }, ...writeErrors, 404: problemResponse('Some ids are unknown; nothing was deleted') } },
    },
    '/api/action-triggers/{id}': {
      parameters: [idParam],
      get: { summary: 'Get one trigger', operationId: 'getTrigger', responses: { 200: triggerResponse('The trigger'), ...errors, 404: problemResponse('Unknown or deleted') } },
      put: { summary: 'Replace a trigger', operationId: 'replaceTrigger', parameters: [ifMatch], requestBody: triggerBody,
        responses: { 200: triggerResponse('Replaced'), ...writeErrors, 404: problemResponse('Unknown trigger'), 412: problemResponse('If-Match mismatch') } },
      patch: { summary: 'Change some fields (JSON merge patch)', operationId: 'patchTrigger', parameters: [ifMatch],
        requestBody: { required: true, content: { 'application/merge-patch+json': { schema: { type: 'object' } }, 'application/json': { schema: { type: 'object' } } } },
        responses: { 200: triggerResponse('Patched'), ...writeErrors, 404: problemResponse('Unknown trigger'), 412: problemResponse('If-Match mismatch') } },
      delete: { summary: 'Delete a trigger (its history stays)', operationId: 'deleteTrigger', parameters: [ifMatch],
        responses: { 204: { description: 'Deleted' }, ...errors, 404: problemResponse('Unknown trigger'), 412: problemResponse('If-Match mismatch') } },
    },
    '/api/action-triggers/{id}/history': {
      parameters: [idParam],
      get: { summary: 'Every event of a trigger, oldest first, also after deletion', operationId: 'triggerHistory',
        responses: { 200: { description: 'Events', content: { 'application/json': { schema: { type: 'array', items: ref('TriggerEvent') } } } }, ...errors, 404: problemResponse('Unknown trigger') } },
    },
    '/api/signals': {
      post: { summary: 'Emit one signal or an array; each starts one durable dispatch (the same id never starts two)', operationId: 'emitSignals',
        requestBody: { required: true, content: { 'application/json': { schema: { oneOf: [ref('Signal'), { type: 'array', minItems: 1, maxItems: 500, items: ref('Signal') }] } } } },
        responses: { 202: { description: 'Accepted: one object, or an array for an array', content: { 'application/json': { schema: { oneOf: [ref('SignalAccepted'), { type: 'array', items: ref('SignalAccepted') }] } } } },
          ...writeErrors, 503: problemResponse('Temporal unreachable: nothing accepted; retry with the same ids') } },
    },
    '/api/signals/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      get: { summary: 'Dispatch state and per-action outcomes', operationId: 'signalStatus',
        responses: { 200: { description: 'The dispatch', content: { 'application/json': { schema: ref('Dispatch') } } }, ...errors,
          404: problemResponse('Unknown signal'), 503: problemResponse('Temporal unreachable') } },
    },
    '/healthz': { get: { summary: 'Liveness', security: [], responses: { 200: { description: 'Alive' } } } },
    '/readyz': { get: { summary: 'Readiness: read model caught up, dependencies reachable', security: [],
      responses: { 200: { description: 'Ready' }, 503: { description: 'Not ready' } } } },
    '/api/openapi.json': { get: { summary: 'This document', security: [], responses: { 200: { description: 'OpenAPI 3.1' } } } },
    '/docs': { get: { summary: 'A page that renders this document', security: [], responses: { 200: { description: 'HTML' } } } },
  },
} as const;
