import type { ActionPlan, DispatchPlan, SignalEnvelope } from '../../dispatch/types';
import { deliveryIdOf } from '../../dispatch/types';
import type { TriggerDefinition } from '../triggers/codecs';
import { orderingFor } from './instance-key';
import { byCondition } from './conditions';
import { actionEntriesOf } from '../../destinations/registry';

/** One action per webhook and queue entry of one trigger at one version, for one signal. */
export const actionsOf = (
  trigger: { id: string; version: number; definition: TriggerDefinition },
  signalId: string,
  defaultTimeoutSecs: number,
): ActionPlan[] => {
  const base = { triggerId: trigger.id, version: trigger.version };
  return actionEntriesOf(trigger.definition).map(({ kind, index, timeoutSecs }) => ({
    ...base,
    kind,
    index,
    deliveryId: deliveryIdOf(signalId, trigger.id, kind, index),
    timeoutSecs: timeoutSecs ?? defaultTimeoutSecs,
  }));
};

/** The active triggers a signal matches, at their current version (the read model answers it). */
export interface TriggerMatcher {
  matching(
    signal: string,
    appLabel: string,
    modelName: string,
  ): ReadonlyArray<{ id: string; version: number; definition: TriggerDefinition }>;
}

/**
 * The plan of a signal for the triggers it matches now whose conditions hold: the active triggers
 * matching it, and one action per webhook and queue entry; only references (id, version, index),
 * never a definition, so nothing secret enters the history.
 */
export const planDispatch = (readModel: TriggerMatcher, defaultTimeoutSecs: number, signal: SignalEnvelope): DispatchPlan =>
  planOf(byCondition(readModel.matching(signal.signal, signal.app_label, signal.model_name), signal).held, signal, defaultTimeoutSecs);

/** The plan of a signal for the triggers it matched. */
export const planOf = (
  views: ReadonlyArray<{ id: string; version: number; definition: TriggerDefinition }>,
  signal: SignalEnvelope,
  defaultTimeoutSecs: number,
): DispatchPlan => {
  const actions = views.flatMap((view) => actionsOf(view, signal.id, defaultTimeoutSecs));
  return {
    triggers: views.map((v) => ({
      triggerId: v.id,
      version: v.version,
      ...(v.definition.ordering === 'per_instance' ? { ordering: orderingFor(v.id, signal) } : {}),
    })),
    actions,
  };
};
