/** The OpenAPI paths of the probes and the metrics route. */
import { json, problemResponse } from '../kernel/openapi';
import { errors } from '../http/openapi-errors';

/** Liveness and readiness: no API key needed. */
export const probePaths = {
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
};

export const metricsPaths = {
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
