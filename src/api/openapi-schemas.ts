/**
 * The OpenAPI schemas of request and response bodies, built from the same constants, patterns
 * and config policy the io-ts codecs check with, so that the document and the behaviour
 * cannot drift apart. Patterns use explicit ASCII classes: they mean the same in every engine.
 */
import { MAX_CONTENT_TYPE_PART, ORDERINGS, SIGNALS, TRIGGER_ID } from '../model/triggers/codecs';
import { TriggerPolicy } from '../model/triggers/policy';
import { MAX_INSTANCE_KEY, MAX_SIGNALS_PER_REQUEST, SIGNAL_ID, TIMESTAMP } from '../model/signals/codecs';
import { MAX_NOT_MATCHED } from '../signals/intake/not-matched';
import { NON_BLANK } from '../kernel/closed';
import { DESTINATIONS } from '../destinations/registry';
import { dryRunSchemas } from './openapi-dry-run';
import { brokerTypeSchemas } from '../destinations/brokers/openapi';

type Schema = Record<string, unknown>;

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
/** A problem+json response with a description (every error of the document). */
export const problemResponse = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: ref('Problem') } },
});
/** An application/json body or response of a schema. */
export const json = (schema: unknown) => ({ 'application/json': { schema } });
export const CONTENT_TYPE_PART: Schema = {
  type: 'string',
  minLength: 1,
  maxLength: MAX_CONTENT_TYPE_PART,
  pattern: NON_BLANK,
  description: 'Not blank; matched case-insensitively',
};
export const TRIGGER_ID_SCHEMA: Schema = { type: 'string', format: 'uuid', pattern: TRIGGER_ID };
export const SIGNAL_ID_SCHEMA: Schema = { type: 'string', pattern: SIGNAL_ID.source };

const anyJson: Schema = {};

/** The fields a client defines; `null` is refused for every one but `payload` (where it means "no payload"). */
const definitionFields = (policy: TriggerPolicy): Record<string, Schema> => ({
  config_signals: {
    type: 'array',
    minItems: 1,
    uniqueItems: true,
    description: 'No signal twice',
    items: { type: 'object', additionalProperties: false, required: ['signal'], properties: { signal: { enum: [...SIGNALS] } } },
  },
  content_types: {
    type: 'array',
    minItems: 1,
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['app_label', 'model_name'],
      properties: { app_label: CONTENT_TYPE_PART, model_name: CONTENT_TYPE_PART },
    },
    ...(policy.allowedContentTypes
      ? { description: `Each one of allowed_content_types: ${[...policy.allowedContentTypes].join(', ')}` }
      : {}),
  },
  webhooks: DESTINATIONS.webhook.schema(policy),
  msg_broker_queues: DESTINATIONS.broker.schema(policy),
  active: { type: 'boolean' },
  payload: {
    ...anyJson,
    description: 'Any JSON value (null: none); strings may hold {{ instance.attr }} and allow-listed {{ dynamic.value }} expressions',
  },
  ordering: {
    enum: [...ORDERINGS],
    description:
      "`none` (default): each signal is sent at once. `per_instance`: for one instance (the signal's instance_key, " +
      "else instance.pk, else instance.id) a signal's actions start only after those of the signal accepted before it are delivered or failed for good",
  },
});

/** Server fields: in responses; in requests accepted (GET, edit, PUT) and ignored. */
const serverFields = (idReadOnly: boolean): Record<string, Schema> => ({
  id: { ...TRIGGER_ID_SCHEMA, ...(idReadOnly ? { readOnly: true } : {}) },
  version: { type: 'integer', readOnly: true },
  created_at: { type: 'string', format: 'date-time', readOnly: true },
  updated_at: { type: 'string', format: 'date-time', readOnly: true },
  deactivated_reason: {
    type: 'string',
    readOnly: true,
    description:
      'Present while the service keeps the trigger inactive: why the circuit ' +
      'breaker deactivated it, naming the failing action (a PATCH {"active": true} clears it)',
  },
});

const PROBLEM: Schema = {
  type: 'object',
  required: ['type', 'title', 'status'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    errors: {
      type: 'array',
      items: { type: 'object', required: ['path', 'message'], properties: { path: { type: 'string' }, message: { type: 'string' } } },
    },
    signals: {
      type: 'array',
      description: 'For a signal batch Temporal refused part-way: which ids were accepted',
      items: { type: 'object', required: ['id', 'accepted'], properties: { id: { type: 'string' }, accepted: { type: 'boolean' } } },
    },
  },
};

const SIGNAL: Schema = {
  type: 'object',
  additionalProperties: false,
  required: ['signal', 'app_label', 'model_name', 'instance'],
  properties: {
    id: { ...SIGNAL_ID_SCHEMA, description: 'Client-chosen; makes emission idempotent. Default: a new UUIDv7' },
    signal: { enum: [...SIGNALS] },
    app_label: CONTENT_TYPE_PART,
    model_name: CONTENT_TYPE_PART,
    instance: { type: 'object', description: "The instance's attributes, read by {{ instance.… }}" },
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
      enum: ['inactive', 'another_signal'],
      description: '`another_signal`: the trigger watches this content type for other signals (`watches`)',
    },
    watches: { type: 'array', items: { enum: [...SIGNALS] } },
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
            enum: ['waiting', 'pending', 'retrying', 'delivered', 'failed'],
            description: "`waiting`: its trigger delivers in order per instance and an earlier signal's actions have not ended",
          },
          attempts: { type: 'integer' },
          status_code: { type: 'integer' },
          last_error: { type: 'string', description: "The last attempt's error; a resolved dynamic value in it shows as its {{ path }}" },
          warnings: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  },
};

/** `components.schemas` for a server running with `policy`. */
export const componentSchemas = (policy: TriggerPolicy): Record<string, Schema> => {
  const fields = definitionFields(policy);
  const required = ['config_signals', 'content_types', 'active'];
  const input = (idReadOnly: boolean, extraRequired: string[] = []): Schema => ({
    type: 'object',
    additionalProperties: false,
    required: [...required, ...extraRequired],
    properties: { ...fields, ...serverFields(idReadOnly) },
  });
  return {
    TriggerInput: {
      ...input(true),
      description: 'A trigger definition; server fields sent back are ignored (an `id` contradicting the path is refused)',
    },
    TriggerReplacement: { ...input(false, ['id']), description: 'A full trigger with the `id` of the one it replaces' },
    TriggerPatch: {
      type: 'object',
      additionalProperties: false,
      description: 'A JSON merge patch: `null` removes webhooks, msg_broker_queues or payload, ' + 'and sets ordering back to none',
      properties: {
        ...fields,
        webhooks: { anyOf: [fields.webhooks, { type: 'null' }] },
        msg_broker_queues: { anyOf: [fields.msg_broker_queues, { type: 'null' }] },
        ordering: { anyOf: [fields.ordering, { type: 'null' }] },
        ...serverFields(true),
      },
    },
    Trigger: {
      type: 'object',
      required: ['id', ...required, 'webhooks', 'msg_broker_queues', 'ordering', 'version', 'created_at', 'updated_at'],
      properties: { ...serverFields(false), ...fields },
    },
    TriggerEvent: {
      type: 'object',
      required: ['type', 'version', 'data', 'metadata'],
      properties: {
        type: { enum: ['TriggerCreated', 'TriggerUpdated', 'TriggerActivated', 'TriggerDeactivated', 'TriggerDeleted'] },
        version: { type: 'integer' },
        data: {
          type: 'object',
          description: 'A TriggerDeactivated by the circuit breaker holds `reason`, and its metadata.actor is `system:circuit-breaker`',
        },
        metadata: {
          type: 'object',
          properties: { actor: { type: 'string' }, request_id: { type: 'string' }, occurred_at: { type: 'string', format: 'date-time' } },
        },
      },
    },
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
    Problem: PROBLEM,
    ...brokerTypeSchemas(),
    ...dryRunSchemas(),
  };
};
