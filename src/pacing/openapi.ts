/** `GET /api/destinations/limits` in the OpenAPI document (src/pacing/). */
import { problemResponse, ref, Schema } from '../kernel/openapi';
import { errors } from '../http/openapi-errors';
import { LIMIT_VIEW_SCHEMA } from '../destinations/port/limit-view';

const LIMIT_FIELDS = LIMIT_VIEW_SCHEMA.properties as Record<string, Schema>;

export const paceSchemas: Record<string, Schema> = {
  DestinationLimit: {
    type: 'object',
    required: ['name', 'kind', 'matches', 'backlog', 'in_flight'],
    description: "A limit the config sets (webhook_limits, brokers.<name>.limits) and its destination's pace now",
    properties: {
      ...LIMIT_FIELDS,
      kind: { enum: ['webhook', 'broker'] },
      matches: { type: 'string', description: "What it covers: the webhook_limits entry's url_prefix, or the broker's name" },
      backlog: {
        type: 'integer',
        minimum: 0,
        description: 'Deliveries waiting now: slots reserved ahead under max_per_second, and deliveries waiting for an in-flight place',
      },
      in_flight: { type: 'integer', minimum: 0, description: 'In-flight places held now (under a lease not yet ended)' },
      paused_until: {
        type: 'string',
        format: 'date-time',
        description: 'The receiver asked for no request until then (429 or 503 with Retry-After); absent when not paused',
      },
    },
  },
};

export const pacePaths = {
  '/api/destinations/limits': {
    get: {
      summary: "Every limit the config sets on a destination, with its backlog, its deliveries in flight and the receiver's pause",
      operationId: 'listDestinationLimits',
      responses: {
        200: {
          description: 'Webhook limits first, then broker limits, each by name; empty when the config sets none',
          content: {
            'application/json': {
              schema: { type: 'object', required: ['limits'], properties: { limits: { type: 'array', items: ref('DestinationLimit') } } },
            },
          },
        },
        401: errors[401],
        403: errors[403],
        503: problemResponse(
          'The event store cannot be read (its server is away, or a stored event this build cannot read); Retry-After when it is worth retrying soon',
        ),
      },
    },
  },
};
