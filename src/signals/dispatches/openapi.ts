/** `GET /api/action-triggers/{id}/dispatches` in the OpenAPI document (src/signals/dispatches/). */
import { DEFAULT_DISPATCH_PAGE, DISPATCH_CURSOR, MAX_DISPATCH_PAGE } from './routes';
import { problemResponse } from '../../kernel/openapi';
import { TRIGGER_ID_SCHEMA } from '../../model/triggers/schemas';
import { DEFAULT_SIGNAL_PAGE, MAX_SIGNAL_PAGE, SIGNAL_CURSOR, SIGNAL_STATES } from '../list/list-query';

/** A JSON page of items and the cursor of the next (null at the end). */
const cursorPage = (items: unknown, cursor: string) => ({
  'application/json': {
    schema: {
      type: 'object',
      required: ['items', 'next_cursor'],
      properties: { items: { type: 'array', items }, next_cursor: { type: ['string', 'null'], pattern: cursor } },
    },
  },
});

const DISPATCH_SUMMARY = {
  type: 'object',
  required: ['workflow_id', 'signal_id', 'state', 'started_at', 'failed'],
  properties: {
    workflow_id: { type: 'string' },
    signal_id: { type: 'string' },
    redelivery_of: { type: 'string', description: "For a redelivery: the workflow id of the signal's own dispatch" },
    state: { type: 'string', description: "Temporal's status: running, completed, terminated, timed_out, …" },
    started_at: { type: 'string', format: 'date-time' },
    closed_at: { type: 'string', format: 'date-time' },
    failed: { type: 'boolean', description: 'An action of this trigger failed for good in it (see GET /api/signals/{id} for each action)' },
  },
};

const SIGNAL_SUMMARY = {
  type: 'object',
  required: ['id', 'signal', 'app_label', 'model_name', 'accepted_at', 'state', 'trigger_ids'],
  properties: {
    id: { type: 'string' },
    signal: { type: 'string' },
    app_label: { type: 'string' },
    model_name: { type: 'string' },
    accepted_at: { type: 'string', format: 'date-time' },
    state: {
      type: 'string',
      description: "As GET /api/signals/{id} says: queued, unmatched, refused, or Temporal's status (running, completed, …), expired",
    },
    trigger_ids: { type: 'array', items: { type: 'string' }, description: 'The triggers it matched' },
    workflow_id: { type: 'string' },
    closed_at: { type: 'string', format: 'date-time' },
    failed_actions: { type: 'boolean', description: 'Completed, with an action that failed for good' },
  },
};

/** `GET /api/signals`: the list; it sits with the dispatches because it answers the same question by signal. */
export const signalListGet = {
  summary:
    'Stored signals, newest first, by trigger and state (a page may hold fewer than `limit` when `state` skips some: follow `next_cursor`)',
  operationId: 'listSignals',
  parameters: [
    { name: 'trigger_id', in: 'query', schema: TRIGGER_ID_SCHEMA },
    { name: 'state', in: 'query', schema: { enum: [...SIGNAL_STATES] } },
    { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: MAX_SIGNAL_PAGE, default: DEFAULT_SIGNAL_PAGE } },
    { name: 'cursor', in: 'query', schema: { type: 'string', pattern: SIGNAL_CURSOR }, description: '`next_cursor` of the previous page' },
  ],
  responses: {
    200: {
      description: 'A page',
      headers: { Link: { schema: { type: 'string' }, description: '<…>; rel="next" when more may follow' } },
      content: cursorPage(SIGNAL_SUMMARY, SIGNAL_CURSOR),
    },
    400: problemResponse('Invalid query; `errors` names each parameter'),
    401: problemResponse('Missing or unknown API key'),
    403: problemResponse('The API key lacks the scope'),
    404: problemResponse('A cursor this service did not make'),
    503: problemResponse('Temporal unreachable (a page with dispatched signals)'),
  },
};

export const dispatchPaths = {
  '/api/action-triggers/{id}/dispatches': {
    parameters: [{ name: 'id', in: 'path', required: true, schema: TRIGGER_ID_SCHEMA }],
    get: {
      summary:
        "The trigger's dispatches (its signals' and their redeliveries), newest first, from Temporal's visibility; also for a deleted trigger",
      operationId: 'listDispatches',
      parameters: [
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: MAX_DISPATCH_PAGE, default: DEFAULT_DISPATCH_PAGE } },
        {
          name: 'cursor',
          in: 'query',
          schema: { type: 'string', pattern: DISPATCH_CURSOR },
          description: '`next_cursor` of the previous page',
        },
      ],
      responses: {
        200: {
          description: 'A page',
          content: cursorPage(DISPATCH_SUMMARY, DISPATCH_CURSOR),
        },
        400: problemResponse('Invalid query; `errors` names each parameter'),
        401: problemResponse('Missing or unknown API key'),
        403: problemResponse('The API key lacks the scope'),
        404: problemResponse('Not a trigger id, or a cursor Temporal did not make'),
        503: problemResponse('Temporal unreachable'),
      },
    },
  },
};
