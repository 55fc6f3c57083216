/**
 * The OpenAPI description of the dry run (`POST /api/action-triggers/<id>/test` and
 * `POST /api/action-triggers/test`): its request and response bodies, from the same constants
 * the codecs and the preview use.
 */
import { destinationViewSchemas } from '../destinations/registry';
import { LIMIT_VIEW_SCHEMA } from '../destinations/port/limit-view';
import { ORDERINGS, SIGNALS } from '../model/triggers/codecs';
import { DRY_RUN_SIGNAL_ID, UNSTORED_TRIGGER_ID } from './dry-run-codec';
import { MAX_DRY_RUN_BODY_CHARS, MAX_SIGNAL_BYTES } from '../kernel/limits';
import { MAX_INSTANCE_KEY, TIMESTAMP } from '../model/signals/codecs';
import { ref, Schema } from '../kernel/openapi';
import { INSTANCE_SCHEMA, PREVIOUS_SCHEMA, SIGNAL_ID_SCHEMA } from '../model/signals/schemas';
import { CONTENT_TYPE_PART, TRIGGER_ID_SCHEMA } from '../model/triggers/schemas';

/** A function: openapi-schemas.ts imports this module, so its constants are read only when called. */
const signalFields = (): Record<string, Schema> => ({
  signal: { enum: [...SIGNALS], description: "Another than the trigger's config_signals is shown too, with would_dispatch false" },
  instance: {
    ...INSTANCE_SCHEMA,
    description: `The instance's attributes, read by {{ instance.… }}; the signal is at most ${MAX_SIGNAL_BYTES} bytes as JSON, as in POST /api/signals`,
  },
  previous: PREVIOUS_SCHEMA,
  id: {
    ...SIGNAL_ID_SCHEMA,
    description: `The signal id to render with (webhook-id, the envelope's signal_id). Default: ${DRY_RUN_SIGNAL_ID}`,
  },
  occurred_at: { type: 'string', format: 'date-time', pattern: TIMESTAMP, description: 'Default: now' },
  instance_key: {
    type: 'string',
    minLength: 1,
    maxLength: MAX_INSTANCE_KEY,
    description: 'As in POST /api/signals: the instance for ordering per_instance',
  },
  app_label: {
    ...CONTENT_TYPE_PART,
    description: "Default: the trigger's first content type (another is shown too, with would_dispatch false)",
  },
  model_name: { ...CONTENT_TYPE_PART, description: "Default: the trigger's first content type" },
});

const ACTION: Schema = {
  type: 'object',
  required: ['kind', 'index', 'delivery_id', 'timeout_secs', 'warnings'],
  properties: {
    kind: { enum: ['webhook', 'broker'] },
    index: { type: 'integer' },
    delivery_id: { type: 'string' },
    timeout_secs: { type: 'number' },
    // Each kind's view: a webhook's request and masked headers, a queue's message.
    ...destinationViewSchemas(),
    limit: LIMIT_VIEW_SCHEMA,
    refused: {
      type: 'string',
      description:
        'Why a dispatch would not send this now: the SSRF guard (allow_private_targets off; DNS answers included), a rendering too large, a header a value broke, a broker setting, a dynamic value off the allow-list',
    },
    error_type: { type: 'string', description: 'The error type a dispatch would record (TargetRefused, RenderTooLarge, …)' },
    retried: { type: 'boolean', description: 'A dispatch would retry (true) or fail at once (false)' },
    body_omitted: {
      type: 'string',
      description: `The body was left out: a dry run shows at most ${MAX_DRY_RUN_BODY_CHARS} characters of bodies`,
    },
    warnings: {
      type: 'array',
      items: { type: 'string' },
      description: "Missing instance attributes, and a URL today's webhook_url_patterns would refuse on write",
    },
  },
};

export const dryRunSchemas = (): Record<string, Schema> => ({
  DryRunRequest: { type: 'object', additionalProperties: false, required: ['signal', 'instance'], properties: signalFields() },
  UnstoredDryRunRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['trigger', 'signal', 'instance'],
    properties: { trigger: ref('TriggerInput'), ...signalFields() },
  },
  DryRun: {
    type: 'object',
    required: ['trigger_id', 'version', 'signal', 'would_dispatch', 'condition', 'ordering', 'varies_per_attempt', 'actions'],
    properties: {
      trigger_id: { ...TRIGGER_ID_SCHEMA, description: `For a trigger body without id: ${UNSTORED_TRIGGER_ID}` },
      version: { type: ['integer', 'null'], description: 'null for a trigger body' },
      signal: {
        type: 'object',
        description: 'The signal rendered with, without its instance',
        properties: {
          id: { type: 'string' },
          signal: { enum: [...SIGNALS] },
          app_label: { type: 'string' },
          model_name: { type: 'string' },
          occurred_at: { type: 'string' },
        },
      },
      would_dispatch: {
        type: 'boolean',
        description:
          'False when a dispatch of this signal would not reach the trigger: inactive, another signal or content type, or a false condition (not_dispatched_reason)',
      },
      not_dispatched_reason: { type: 'string' },
      condition: {
        description: "The trigger's condition for this signal; null: the trigger has none",
        anyOf: [
          { type: 'null' },
          { type: 'object', required: ['held'], properties: { held: { const: true } } },
          {
            type: 'object',
            required: ['held', 'clause', 'detail'],
            properties: { held: { const: false }, clause: { type: 'string' }, detail: { type: 'string' } },
          },
        ],
      },
      ordering: { enum: [...ORDERINGS] },
      instance_key: { type: 'string', description: 'ordering per_instance: the instance whose earlier signals a dispatch would wait for' },
      unordered: { type: 'string', description: 'ordering per_instance, but the signal names no instance: why it would be sent at once' },
      varies_per_attempt: { type: 'array', items: { type: 'string' }, description: 'Headers a real attempt sets at its own time' },
      actions: { type: 'array', items: ACTION },
    },
  },
});
