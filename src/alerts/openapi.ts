/** The alerts in the OpenAPI document (src/alerts/): the feed's routes, and the body a webhook sink receives. */
import { ALERT_TYPES } from '../model/alerts/alert';
import { problemResponse, ref, Schema } from '../kernel/openapi';
import { errors } from '../http/openapi-errors';
import { POSITION } from '../audit/feed-query';
import { FEED_PAGE_PARAMETERS, FEED_STREAM_PARAMETERS } from '../audit/openapi';

const POSITION_SCHEMA = { type: 'string', pattern: POSITION, description: 'A store position (64-bit), as a decimal string' };
const TIME = { type: 'string', format: 'date-time' };

const ALERT_FIELDS: Record<string, Schema> = {
  id: { type: 'string', description: 'Stable: a webhook sink sends it as `webhook-id`' },
  type: { enum: [...ALERT_TYPES] },
  occurred_at: TIME,
  summary: { type: 'string', description: 'One line a person reads first (an email subject, the first line of a Slack message)' },
  trigger_id: { type: 'string' },
  action: {
    type: 'object',
    required: ['key', 'kind', 'name'],
    properties: {
      key: { type: 'string', description: '`w<index>` for a webhook, `q<index>` for a broker queue' },
      kind: { enum: ['webhook', 'broker'] },
      name: { type: 'string', description: 'e.g. `webhook 0 (https://host/path)`: scheme, host and path, never a query or credentials' },
    },
  },
  destination: { type: 'string', description: 'destination.backlog: the limit, `webhook:<name>` or `broker:<name>`' },
  failed_dispatches: { type: 'integer', minimum: 0, description: 'Dispatches of the action that failed every attempt in its current run' },
  threshold: {
    type: 'integer',
    minimum: 1,
    description: "The breaker's consecutive_failures; destination.backlog: the config's alerts.backlog_threshold",
  },
  percent: { type: 'integer', minimum: 1, maximum: 99, description: 'action.failing: the percent of the threshold reached' },
  backlog: { type: 'integer', minimum: 0, description: 'destination.backlog: deliveries waiting' },
  first_failure_at: TIME,
  last_failure_at: TIME,
  reason: { type: 'string', description: "trigger.deactivated: the breaker's reason" },
  link: { type: 'string', description: 'The admin page of the trigger (or of the limits)' },
};

export const alertSchemas: Record<string, Schema> = {
  Alert: { type: 'object', required: ['id', 'type', 'occurred_at', 'summary', 'link'], properties: ALERT_FIELDS },
  FeedAlert: {
    type: 'object',
    required: ['position', 'id', 'type', 'occurred_at', 'summary', 'link'],
    properties: { position: POSITION_SCHEMA, ...ALERT_FIELDS },
  },
  AlertsPage: {
    type: 'object',
    required: ['alerts', 'next'],
    properties: {
      alerts: { type: 'array', items: ref('FeedAlert') },
      next: { anyOf: [POSITION_SCHEMA, { type: 'null' }], description: 'Ask `after` this next (null: no alert stored yet)' },
    },
  },
  AlertOutcome: {
    type: 'object',
    required: ['sink', 'outcome', 'at'],
    properties: {
      sink: { type: 'string' },
      outcome: { enum: ['sent', 'not_sent'], description: 'not_sent: refused for good, or not taken within the retries\u2019 hour' },
      at: TIME,
      digest: { type: 'string', description: 'Sent within this digest' },
      error: { type: 'string' },
    },
  },
  AlertSink: {
    type: 'object',
    required: ['name', 'type', 'target', 'events', 'max_per_minute'],
    properties: {
      name: { type: 'string' },
      type: { enum: ['webhook', 'slack', 'email'] },
      target: { type: 'string', description: "A URL's scheme and host, or the SMTP server's host and port; never a secret" },
      to: { type: 'array', items: { type: 'string' } },
      events: { type: 'array', items: { enum: [...ALERT_TYPES] } },
      max_per_minute: { type: 'integer', minimum: 1 },
      last_outcome: ref('AlertOutcome'),
    },
  },
  AlertWebhook: {
    type: 'object',
    required: ['type', 'timestamp', 'data'],
    description:
      'What a webhook sink receives, signed as Standard Webhooks (webhook-id: the alert or digest id; webhook-timestamp; webhook-signature with the sink\u2019s own secret)',
    properties: {
      type: { enum: [...ALERT_TYPES, 'alerts.digest'] },
      timestamp: TIME,
      data: {
        oneOf: [
          ref('Alert'),
          {
            type: 'object',
            required: ['id', 'summary', 'alerts'],
            description: 'alerts.digest: several alerts that waited together',
            properties: { id: { type: 'string' }, summary: { type: 'string' }, alerts: { type: 'array', items: ref('Alert') } },
          },
        ],
      },
    },
  },
};

export const alertPaths = {
  '/api/alerts': {
    get: {
      summary: 'Every alert raised, in the order raised (what the sinks are sent, to pull)',
      operationId: 'listAlerts',
      parameters: FEED_PAGE_PARAMETERS,
      responses: {
        200: {
          description: 'A page; resuming from `next` misses nothing and repeats nothing',
          content: { 'application/json': { schema: ref('AlertsPage') } },
        },
        400: errors[400],
        401: errors[401],
        403: errors[403],
      },
    },
  },
  '/api/alerts/stream': {
    get: {
      summary: 'The alerts live, as Server-Sent Events (`id` the position, `event` the alert type, `data` a FeedAlert)',
      operationId: 'streamAlerts',
      parameters: FEED_STREAM_PARAMETERS,
      responses: {
        200: { description: 'An endless event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } },
        400: errors[400],
        401: errors[401],
        403: errors[403],
        503: problemResponse('Too many streams open in this process; Retry-After says when to try again'),
      },
    },
  },
  '/api/alerts/recent': {
    get: {
      summary: 'The alert sinks, and the last alerts, newest first, with what each sink made of them',
      operationId: 'recentAlerts',
      parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 } }],
      responses: {
        200: {
          description: 'The sinks the config names, and the alerts',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['sinks', 'alerts'],
                properties: {
                  sinks: { type: 'array', items: ref('AlertSink') },
                  alerts: {
                    type: 'array',
                    items: {
                      allOf: [
                        ref('FeedAlert'),
                        { type: 'object', required: ['outcomes'], properties: { outcomes: { type: 'array', items: ref('AlertOutcome') } } },
                      ],
                    },
                  },
                },
              },
            },
          },
        },
        400: errors[400],
        401: errors[401],
        403: errors[403],
        503: problemResponse('The event store cannot be read; Retry-After when it is worth retrying soon'),
      },
    },
  },
};

/** OpenAPI 3.1 `webhooks`: what the service sends to a webhook alert sink. */
export const alertWebhooks = {
  alert: {
    post: {
      summary: 'An alert (or a digest of alerts) sent to a webhook sink of the config\u2019s `alerts.sinks`',
      operationId: 'alertWebhook',
      requestBody: { required: true, content: { 'application/json': { schema: ref('AlertWebhook') } } },
      responses: {
        200: { description: 'Any 2xx: taken. 408, 429 (Retry-After honoured) and 5xx are tried again; other answers give it up' },
      },
    },
  },
};
