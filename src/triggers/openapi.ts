/** The OpenAPI paths of the trigger routes (CRUD, list, history, `as_of`, dry run). */
import { CURSOR, DEFAULT_LIMIT, MAX_LIMIT, MAX_Q_LENGTH } from './list-query';
import { MAX_IDS, MAX_QUERY_IDS } from './delete-query';
import { DEFAULT_HISTORY_PAGE, MAX_HISTORY_AFTER, MAX_HISTORY_PAGE } from './history-query';
import { SIGNALS } from '../model/triggers/codecs';
import { TIMESTAMP } from '../model/signals/codecs';
import { CONTENT_TYPE_PART, TRIGGER_ID_SCHEMA } from '../model/triggers/schemas';
import { body, json, problemResponse, ref } from '../kernel/openapi';
import { errors, writeErrors } from '../http/openapi-errors';
import { IF_MATCH } from '../http/request';

const idParam = { name: 'id', in: 'path', required: true, schema: TRIGGER_ID_SCHEMA };
const etag = { ETag: { schema: { type: 'string' }, description: 'The trigger version, quoted' } };
const triggerResponse = (description: string) => ({ description, headers: etag, content: json(ref('Trigger')) });
const ifMatch = {
  name: 'If-Match',
  in: 'header',
  required: false,
  schema: { type: 'string', pattern: IF_MATCH },
  description: 'The ETag last seen ("3" or W/"3"), or * for "any live version"; a mismatch is 412 and changes nothing.',
};
const conditional = { 404: problemResponse('Unknown or deleted trigger'), 412: problemResponse('If-Match names another version') };
const ids = (maxItems: number) => ({ type: 'array', minItems: 1, maxItems, items: TRIGGER_ID_SCHEMA });

export const asOfParameter = {
  name: 'as_of',
  in: 'query',
  required: false,
  schema: { type: 'string', format: 'date-time', pattern: TIMESTAMP },
  description: 'The trigger as it was then: every event recorded at or before it (404 if it did not exist yet or was deleted by then)',
};

export const triggerPaths = {
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

export const dryRunPaths = {
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
