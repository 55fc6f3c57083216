import * as t from 'io-ts';
import type { SignalEnvelope } from '../dispatch/types';
import { oversizeSignals } from '../model/signals/accept';
import { Instance, InstanceKey, Previous, SignalId, Timestamp } from '../model/signals/codecs';
import { closed } from '../kernel/closed';
import type { FieldError } from '../kernel/field-errors';
import { ContentTypePart, SignalName, TriggerDefinition, TriggerInput } from '../model/triggers/codecs';
import { contentTypeKey } from '../model/triggers/policy';
import type { ConditionResult } from '../model/conditions/syntax';

/** The signal id a dry run uses when the request gives none: `webhook-id` is `dry-run.<trigger id>.w<index>`. */
export const DRY_RUN_SIGNAL_ID = 'dry-run';
/** The trigger id of a trigger that is not stored and names no `id`. */
export const UNSTORED_TRIGGER_ID = '00000000-0000-0000-0000-000000000000';

/** The signal a dry run renders: as POST /api/signals takes it, but the content type may be left to the trigger. */
const signalFields = {
  required: { signal: SignalName, instance: Instance },
  optional: {
    id: SignalId,
    occurred_at: Timestamp,
    app_label: ContentTypePart,
    model_name: ContentTypePart,
    instance_key: InstanceKey,
    previous: Previous,
  },
};

export const DryRunInput = closed('DryRun', signalFields.required, signalFields.optional);
export type DryRunInput = t.TypeOf<typeof DryRunInput>;

/** `{trigger, signal, instance, …}`: the trigger is checked by the codec POST /api/action-triggers uses. */
export const unstoredDryRunCodec = (triggerInput: t.Decoder<unknown, TriggerInput>) => {
  const Trigger = new t.Type<TriggerInput, TriggerInput, unknown>(
    'TriggerInput',
    (_u): _u is TriggerInput => true,
    (u, c) => (u === undefined ? t.failure(u, c, 'is required') : triggerInput.validate(u, c)),
    t.identity,
  );
  return closed('UnstoredDryRun', { trigger: Trigger, ...signalFields.required }, signalFields.optional);
};

/** The signal envelope of a dry run (content type default: the trigger's first), or a signal over the limit POST /api/signals applies. */
export const envelopeOf = (input: DryRunInput, definition: TriggerDefinition, now: Date): SignalEnvelope | FieldError[] => {
  const first = definition.content_types[0]!;
  const envelope: SignalEnvelope = {
    id: input.id ?? DRY_RUN_SIGNAL_ID,
    signal: input.signal,
    app_label: input.app_label ?? first.app_label,
    model_name: input.model_name ?? first.model_name,
    instance: input.instance,
    occurred_at: input.occurred_at ?? now.toISOString(),
    ...(input.instance_key === undefined ? {} : { instance_key: input.instance_key }),
    ...(input.previous === undefined ? {} : { previous: input.previous }),
  };
  const oversize = oversizeSignals([envelope], false);
  return oversize.length > 0 ? oversize : envelope;
};

/**
 * Why a dispatch of this signal would not reach the trigger, as planning decides it (active,
 * watched signal, watched content type, condition), or undefined. The dry run still shows its actions.
 */
export const notDispatchedReason = (
  signal: SignalEnvelope,
  definition: TriggerDefinition,
  condition: ConditionResult | null,
): string | undefined => {
  if (!definition.active) return 'the trigger is inactive: signals dispatch only active triggers';
  const watched = definition.config_signals.map((s) => s.signal);
  if (!watched.includes(signal.signal)) return `the trigger does not watch ${signal.signal} (it watches ${watched.join(', ')})`;
  const key = contentTypeKey(signal.app_label, signal.model_name);
  if (!definition.content_types.some((ct) => contentTypeKey(ct.app_label, ct.model_name) === key)) {
    return `the trigger does not watch ${signal.app_label}.${signal.model_name} (it watches ${definition.content_types.map((ct) => `${ct.app_label}.${ct.model_name}`).join(', ')})`;
  }
  if (condition && !condition.held) return `the condition is false at ${condition.clause}: ${condition.detail}`;
  return undefined;
};
