/**
 * The OpenAPI schemas of trigger bodies, built from the same constants, patterns and config policy
 * the io-ts codecs check with (each destination gives its own field's schema), so that the
 * document and the behaviour cannot drift apart. Patterns use explicit ASCII classes: they mean
 * the same in every engine.
 */
import { ORDERINGS, SIGNALS } from '../model/triggers/codecs';
import { TriggerPolicy } from '../model/triggers/policy';
import { CONTENT_TYPE_PART, TRIGGER_ID_SCHEMA } from '../model/triggers/schemas';
import { JSON_VALUE, type Schema } from '../kernel/openapi';
import { DESTINATIONS } from '../destinations/registry';
import { CONDITION_SCHEMA, conditionSchemas } from '../model/conditions/schemas';

/** The fields a client defines; `null` is refused for every one but `payload` and `condition` (where it means "none"). */
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
    ...JSON_VALUE,
    description: 'Any JSON value (null: none); strings may hold {{ instance.attr }} and allow-listed {{ dynamic.value }} expressions',
  },
  condition: { anyOf: [CONDITION_SCHEMA, { type: 'null' }], description: 'null: none (the trigger fires for every signal it watches)' },
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

/** The trigger bodies' `components.schemas` for a server running with `policy`. */
export const triggerSchemas = (policy: TriggerPolicy): Record<string, Schema> => {
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
      description:
        'A JSON merge patch: `null` removes webhooks, msg_broker_queues, payload or condition, and sets ordering back to none; ' +
        'a condition given is replaced whole (its nulls are values)',
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
      properties: { ...serverFields(false), ...fields, condition: CONDITION_SCHEMA },
    },
    ...conditionSchemas(),
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
  };
};
