/** The cancel route and its schemas in the OpenAPI document (src/signals/cancel/). */
import { MAX_ACTIONS_PER_DISPATCH } from '../../kernel/limits';
import { json, problemResponse, ref, Schema } from '../../kernel/openapi';
import { SIGNAL_ID_SCHEMA } from '../../model/signals/schemas';

export const cancelSchemas: Record<string, Schema> = {
  CancelDeliveries: {
    type: 'object',
    additionalProperties: false,
    properties: {
      delivery_ids: {
        type: 'array',
        minItems: 1,
        maxItems: MAX_ACTIONS_PER_DISPATCH,
        items: { type: 'string' },
        description: "Only these deliveries; without it, every delivery of the signal's dispatches not yet ended",
      },
    },
  },
  DeliveriesCancelled: {
    type: 'object',
    required: ['id', 'cancelled', 'cancelled_by', 'cancelled_at'],
    properties: {
      id: { type: 'string', description: 'The signal id' },
      cancelled: {
        type: 'array',
        items: {
          type: 'object',
          required: ['delivery_id', 'workflow_id'],
          properties: {
            delivery_id: { type: 'string' },
            workflow_id: { type: 'string', description: "The dispatch it was cancelled in: the signal's own, or a redelivery's" },
          },
        },
      },
      cancelled_by: { type: 'string', description: 'The id of the API key that asked (`anonymous` when the service has no keys)' },
      cancelled_at: { type: 'string', format: 'date-time' },
    },
  },
};

export const cancelPaths = {
  '/api/signals/{id}/cancel': {
    parameters: [{ name: 'id', in: 'path', required: true, schema: SIGNAL_ID_SCHEMA }],
    post: {
      summary: "Cancel a signal's pending deliveries (all, or by delivery id): never attempted again, shown `cancelled` with who and when",
      description:
        'Ends each chosen delivery that is waiting, pending or retrying, in every running dispatch of the signal (its own and its redeliveries). ' +
        'A timer waiting for the next attempt ends; an attempt already on the wire may still reach its target, and none starts after it. ' +
        'A cancelled delivery can be sent again with `POST /api/signals/{id}/redeliver`.',
      operationId: 'cancelDeliveries',
      requestBody: { required: false, content: json(ref('CancelDeliveries')) },
      responses: {
        200: { description: 'What was cancelled', content: json(ref('DeliveriesCancelled')) },
        400: problemResponse('Invalid input; `errors` names each field path'),
        401: problemResponse('Missing or unknown API key'),
        403: problemResponse('The API key lacks the scope'),
        404: problemResponse('No stored signal with this id'),
        409: problemResponse(
          'Nothing cancelled: every chosen delivery has ended (delivered, failed for good or cancelled; `errors` names each named one and how it ended), ' +
            "a dispatch of the signal is still queued (ask again in a moment), a delivery id is not the signal's (`errors` names it), or the signal matched no trigger",
        ),
        413: problemResponse('Body over the size limit'),
        415: problemResponse('A body that is not JSON'),
        503: problemResponse('Temporal, its workers or the store unreachable; asking again is safe'),
      },
    },
  },
};
