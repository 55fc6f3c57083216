/** The audit feed's routes and schemas in the OpenAPI document (src/audit/). */
import { DEFAULT_LIMIT, MAX_LIMIT } from '../triggers/list-query';
import { POSITION } from './feed-query';
import { EVENT_STREAM_DEFAULTS } from './stream';
import { problemResponse, ref, Schema } from '../kernel/openapi';
const mib = (bytes: number) => bytes / (1024 * 1024);
const errors = {
  400: problemResponse('Invalid input; `errors` names each field path'),
  401: problemResponse('Missing or unknown API key'),
  403: problemResponse('The API key lacks the scope'),
};
const POSITION_SCHEMA = { type: 'string', pattern: POSITION, description: 'A store position (64-bit), as a decimal string' };
const after = {
  name: 'after',
  in: 'query',
  schema: POSITION_SCHEMA,
  description: "Only events after this position (a page's `next`); absent: from the first",
};
/** A feed page's query (the audit feed's, the alerts'): `after` a position, at most `limit` items. */
export const FEED_PAGE_PARAMETERS = [
  after,
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT } },
];
/** A live feed's start: `after` a position, or `Last-Event-ID` (a reconnect). */
export const FEED_STREAM_PARAMETERS = [
  after,
  { name: 'Last-Event-ID', in: 'header', required: false, schema: POSITION_SCHEMA, description: 'Wins over `after`' },
];

export const eventSchemas: Record<string, Schema> = {
  FeedEvent: {
    type: 'object',
    required: ['position', 'trigger_id', 'type', 'version', 'data', 'metadata'],
    properties: {
      position: POSITION_SCHEMA,
      trigger_id: { type: 'string' },
      type: { enum: ['TriggerCreated', 'TriggerUpdated', 'TriggerActivated', 'TriggerDeactivated', 'TriggerDeleted'] },
      version: { type: 'integer', description: 'The trigger version this event made' },
      data: { type: 'object', description: "As in the trigger's history" },
      metadata: {
        type: 'object',
        properties: { actor: { type: 'string' }, request_id: { type: 'string' }, occurred_at: { type: 'string', format: 'date-time' } },
      },
    },
  },
  FeedPage: {
    type: 'object',
    required: ['events', 'next'],
    properties: {
      events: { type: 'array', items: ref('FeedEvent') },
      next: {
        anyOf: [POSITION_SCHEMA, { type: 'null' }],
        description:
          'Ask `after` this next: the last position on the page, or `after` when none followed (null: the store holds no trigger event yet)',
      },
    },
  },
};

export const eventPaths = {
  '/api/events': {
    get: {
      summary: 'Every event of every trigger, in store order (the audit feed, for export)',
      operationId: 'listEvents',
      parameters: FEED_PAGE_PARAMETERS,
      responses: {
        200: {
          description: 'A page; resuming from `next` misses nothing and repeats nothing',
          headers: { Link: { schema: { type: 'string' }, description: '<…>; rel="next" when the page is full' } },
          content: { 'application/json': { schema: ref('FeedPage') } },
        },
        ...errors,
      },
    },
  },
  '/api/events/stream': {
    get: {
      summary: 'The audit feed live, as Server-Sent Events: the backlog, then each event as it is stored',
      operationId: 'streamEvents',
      description:
        `Each message: \`id\` the position, \`event\` the type, \`data\` a FeedEvent. Reconnecting with \`Last-Event-ID\` resumes after it. ` +
        `A comment every ${EVENT_STREAM_DEFAULTS.heartbeatMs / 1000} s keeps it alive. At most ${EVENT_STREAM_DEFAULTS.maxStreams} streams per process. ` +
        `The server reads on only as the client takes what was sent (${mib(EVENT_STREAM_DEFAULTS.readBytes)} MiB of events at a time); a client that takes ` +
        `nothing for ${EVENT_STREAM_DEFAULTS.stallMs / 1000} s is disconnected (reconnect with \`Last-Event-ID\`). All streams of a process hold at most ` +
        `${mib(EVENT_STREAM_DEFAULTS.maxHeldBytes)} MiB of events: past it they pause until clients take more, none is refused for it.`,
      parameters: FEED_STREAM_PARAMETERS,
      responses: {
        200: { description: 'An endless event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } },
        ...errors,
        503: problemResponse('Too many streams open in this process; Retry-After says when to try again'),
      },
    },
  },
};
