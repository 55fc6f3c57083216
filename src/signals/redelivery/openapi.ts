/** The redelivery routes and schemas of the OpenAPI document (src/signals/redelivery/). */
import { MAX_ACTIONS_PER_DISPATCH, MAX_BULK_REDELIVERIES, MAX_REDELIVERIES_PER_SIGNAL } from '../../kernel/limits';
import { TIMESTAMP } from '../../model/signals/codecs';
import { json, problemResponse, ref, Schema } from '../../kernel/openapi';
import { SIGNAL_ID_SCHEMA } from '../../model/signals/schemas';
import { TRIGGER_ID_SCHEMA } from '../../model/triggers/schemas';

const errors = {
  400: problemResponse('Invalid input; `errors` names each field path'),
  401: problemResponse('Missing or unknown API key'),
  403: problemResponse('The API key lacks the scope'),
  413: problemResponse('Body over the size limit'),
  503: problemResponse('Temporal or the store unreachable; ask again'),
};
const MODE = {
  enum: ['as_dispatched', 'current'],
  description: '`as_dispatched`: the trigger versions the original dispatch recorded; `current`: the same triggers as they are now',
};

export const redeliverySchemas: Record<string, Schema> = {
  Redeliver: {
    type: 'object',
    additionalProperties: false,
    required: ['mode'],
    properties: {
      mode: MODE,
      delivery_ids: {
        type: 'array',
        minItems: 1,
        maxItems: MAX_ACTIONS_PER_DISPATCH,
        items: { type: 'string' },
        description: 'Only these actions (delivered or not); without it, every action no dispatch of the signal delivered',
      },
    },
  },
  RedeliveryQueued: {
    type: 'object',
    required: ['id', 'workflow_id', 'redelivery_of', 'number', 'mode', 'delivery_ids', 'state'],
    properties: {
      id: { type: 'string', description: 'The signal id' },
      workflow_id: { type: 'string', description: '`signal-<id>/redelivery-<number>`' },
      redelivery_of: { type: 'string', description: "The workflow id of the signal's own dispatch" },
      number: { type: 'integer', minimum: 1 },
      mode: MODE,
      delivery_ids: { type: 'array', items: { type: 'string' }, description: 'What it sends; each keeps its webhook-id' },
      state: { const: 'queued' },
    },
  },
  RedeliverFailed: {
    type: 'object',
    additionalProperties: false,
    required: ['since'],
    properties: {
      since: { type: 'string', format: 'date-time', pattern: TIMESTAMP, description: 'Dispatches started at or after this time' },
    },
  },
  RedeliveredFailed: {
    type: 'object',
    required: ['redelivered', 'skipped', 'truncated'],
    properties: {
      redelivered: { type: 'integer', description: 'Signals whose failed actions of the trigger were queued again (as dispatched)' },
      skipped: {
        type: 'object',
        properties: { busy: { type: 'integer' }, nothing_left: { type: 'integer' }, not_stored: { type: 'integer' } },
        description:
          'Signals found failed but not redelivered: a dispatch still queued or running; every action since delivered; past the retention window',
      },
      truncated: { type: 'boolean', description: `More than ${MAX_BULK_REDELIVERIES} signals matched: ask again` },
    },
  },
};

const signalId = { name: 'id', in: 'path', required: true, schema: SIGNAL_ID_SCHEMA };

export const redeliveryPaths = {
  '/api/signals/{id}/redeliver': {
    parameters: [signalId],
    post: {
      summary: "Dispatch some of a stored signal's actions again, as a new workflow linked from the original",
      operationId: 'redeliverSignal',
      requestBody: { required: true, content: json(ref('Redeliver')) },
      responses: {
        202: { description: 'Stored; the relay starts it', content: json(ref('RedeliveryQueued')) },
        ...errors,
        404: problemResponse('No stored signal with this id'),
        409: problemResponse(
          "Refused by the signal's state: a dispatch of it still queued or running; another redelivery asked for at the same time; " +
            `a delivery id not in its dispatch (\`errors\` names it); nothing to send (every action delivered, or no trigger matches now); or redelivered ${MAX_REDELIVERIES_PER_SIGNAL} times already`,
        ),
      },
    },
  },
  '/api/signals/{id}/redeliveries/{n}': {
    parameters: [signalId, { name: 'n', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }],
    get: {
      summary: "One redelivery's dispatch (as GET /api/signals/{id}, with redelivery_of, number, mode, requested_at)",
      operationId: 'redeliveryStatus',
      responses: {
        200: { description: 'The dispatch', content: json(ref('Dispatch')) },
        ...errors,
        404: problemResponse('No such redelivery of a stored signal'),
      },
    },
  },
  '/api/action-triggers/{id}/redeliver-failed': {
    parameters: [{ name: 'id', in: 'path', required: true, schema: TRIGGER_ID_SCHEMA }],
    post: {
      summary: 'Redeliver (as dispatched) every dispatch since a time in which an action of this trigger failed for good',
      operationId: 'redeliverFailed',
      requestBody: { required: true, content: json(ref('RedeliverFailed')) },
      responses: {
        202: { description: 'How many were queued', content: json(ref('RedeliveredFailed')) },
        ...errors,
        404: problemResponse('No such trigger (or deleted)'),
      },
    },
  },
};
