/** The OpenAPI description of the signal routes: emitting signals and a signal's dispatch. */
import { SIGNALS } from '../../model/triggers/codecs';
import { MAX_INSTANCE_KEY, MAX_SIGNALS_PER_REQUEST, TIMESTAMP } from '../../model/signals/codecs';
import { INSTANCE_SCHEMA, PREVIOUS_SCHEMA, SIGNAL_ID_SCHEMA } from '../../model/signals/schemas';
import { CONTENT_TYPE_PART } from '../../model/triggers/schemas';
import { MAX_NOT_MATCHED } from '../intake/not-matched';
import { body, json, problemResponse, ref, Schema } from '../../kernel/openapi';
import { errors, writeErrors } from '../../http/openapi-errors';
import { signalListGet } from '../dispatches/openapi';

const SIGNAL: Schema = {
  type: 'object',
  additionalProperties: false,
  required: ['signal', 'app_label', 'model_name', 'instance'],
  properties: {
    id: { ...SIGNAL_ID_SCHEMA, description: 'Client-chosen; makes emission idempotent. Default: a new UUIDv7' },
    signal: { enum: [...SIGNALS] },
    app_label: CONTENT_TYPE_PART,
    model_name: CONTENT_TYPE_PART,
    instance: INSTANCE_SCHEMA,
    previous: PREVIOUS_SCHEMA,
    occurred_at: { type: 'string', format: 'date-time', pattern: TIMESTAMP },
    instance_key: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_INSTANCE_KEY,
      description: 'The instance for triggers with ordering per_instance. Default: instance.pk, else instance.id',
    },
  },
};

const NOT_MATCHED: Schema = {
  type: 'object',
  required: ['trigger_id', 'version', 'reason'],
  properties: {
    trigger_id: { type: 'string' },
    version: { type: 'integer' },
    reason: {
      enum: ['inactive', 'another_signal', 'condition_false'],
      description:
        '`another_signal`: the trigger watches this content type for other signals (`watches`); ' +
        '`condition_false`: its condition did not hold (`clause`, `detail`)',
    },
    watches: { type: 'array', items: { enum: [...SIGNALS] } },
    clause: { type: 'string', description: 'The path of the clause that did not hold, as condition.instance.status.$eq' },
    detail: { type: 'string', description: "Why it did not hold, quoting the condition's values only" },
  },
};

const DISPATCH: Schema = {
  type: 'object',
  required: ['id', 'workflow_id', 'state', 'triggers', 'actions'],
  properties: {
    id: { type: 'string' },
    workflow_id: { type: 'string', description: 'The workflow that dispatches (or would dispatch) the signal' },
    state: {
      type: 'string',
      description:
        '`unmatched` (no trigger matched: never dispatched; `reason` says why), `queued` (stored; its workflow is not started yet), ' +
        "`running`, `completed`, `refused` (Temporal refused to start it; `reason`), `expired` (Temporal no longer keeps its workflow), or Temporal's terminated, timed_out, …",
    },
    accepted_at: { type: 'string', format: 'date-time' },
    reason: { type: 'string', description: 'Why an unmatched, refused or expired signal is so' },
    not_matched: {
      type: 'array',
      items: NOT_MATCHED,
      description: `Triggers watching the signal's content type that did not match it (at most ${MAX_NOT_MATCHED})`,
    },
    not_matched_truncated: { type: 'boolean', description: 'More triggers did not match than `not_matched` lists' },
    redeliveries: {
      type: 'array',
      description: 'Redeliveries asked for, oldest first (see GET /api/signals/{id}/redeliveries/{n})',
      items: {
        type: 'object',
        required: ['number', 'workflow_id', 'mode', 'delivery_ids', 'requested_at'],
        properties: {
          number: { type: 'integer' },
          workflow_id: { type: 'string' },
          mode: { enum: ['as_dispatched', 'current'] },
          delivery_ids: { type: 'array', items: { type: 'string' } },
          requested_at: { type: 'string', format: 'date-time' },
        },
      },
    },
    redelivery_of: { type: 'string', description: "On a redelivery: the workflow id of the signal's own dispatch" },
    number: { type: 'integer', description: 'On a redelivery: its number' },
    mode: { enum: ['as_dispatched', 'current'], description: 'On a redelivery: how it was planned' },
    requested_at: { type: 'string', format: 'date-time', description: 'On a redelivery: when it was asked for' },
    triggers: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          trigger_id: { type: 'string' },
          version: { type: 'integer' },
          instance_key: { type: 'string', description: "The trigger delivers in order per instance: this signal's instance" },
          unordered: {
            type: 'string',
            description: 'The trigger delivers in order per instance, but this signal names none: why it is sent at once',
          },
        },
      },
    },
    actions: {
      type: 'array',
      items: {
        type: 'object',
        required: ['delivery_id', 'trigger_id', 'kind', 'state', 'attempts'],
        properties: {
          delivery_id: { type: 'string', description: 'Sent as webhook-id and as the AMQP messageId' },
          trigger_id: { type: 'string' },
          version: { type: 'integer' },
          kind: { enum: ['webhook', 'broker'] },
          index: { type: 'integer' },
          state: {
            enum: ['waiting', 'pending', 'retrying', 'delivered', 'failed', 'cancelled'],
            description:
              "`waiting`: its trigger delivers in order per instance and an earlier signal's actions have not ended, or its destination's limit holds it (`waiting_for`); `cancelled`: cancelled before it ended (POST /api/signals/{id}/cancel)",
          },
          waiting_for: {
            type: 'object',
            description:
              "Waiting for its destination's limit (`webhook_limits`, a broker's `limits`); the wait counts against neither its time-out nor its retries",
            required: ['reason'],
            properties: {
              reason: {
                enum: ['rate_limited', 'paused_by_receiver'],
                description:
                  '`rate_limited`: the limit is reached; `paused_by_receiver`: the receiver answered 429 or 503 with Retry-After, pausing every delivery to it',
              },
              until: { type: 'string', format: 'date-time', description: 'When its attempt is due, when that is known' },
            },
          },
          attempts: { type: 'integer' },
          status_code: { type: 'integer' },
          last_error: { type: 'string', description: "The last attempt's error; a resolved dynamic value in it shows as its {{ path }}" },
          warnings: { type: 'array', items: { type: 'string' } },
          cancelled_by: {
            type: 'string',
            description: 'Who cancelled it: the id of the API key (`anonymous` when the service has no keys)',
          },
          cancelled_at: { type: 'string', format: 'date-time', description: 'When it was cancelled' },
        },
      },
    },
  },
};

/** The signal bodies' `components.schemas`. */
export const signalSchemas: Record<string, Schema> = {
  Signal: SIGNAL,
  SignalBatch: { oneOf: [ref('Signal'), { type: 'array', minItems: 1, maxItems: MAX_SIGNALS_PER_REQUEST, items: ref('Signal') }] },
  SignalAccepted: {
    type: 'object',
    required: ['id', 'workflow_id', 'duplicate', 'state'],
    properties: {
      id: { type: 'string' },
      workflow_id: { type: 'string' },
      duplicate: {
        type: 'boolean',
        description: 'This id was accepted before (within the retention window); nothing new was stored or started',
      },
      state: {
        enum: ['queued', 'unmatched'],
        description:
          '`queued`: stored, its dispatch starts as soon as Temporal takes it; `unmatched`: no trigger matched (never dispatched)',
      },
    },
  },
  Dispatch: DISPATCH,
};

export const signalPaths = {
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
