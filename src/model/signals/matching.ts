import type { ActionPlan, DispatchPlan, SignalEnvelope } from '../../dispatch/types';
import { deliveryIdOf } from '../../dispatch/types';
import type { TriggerDefinition } from '../triggers/codecs';
import { orderingFor } from './instance-key';
import { byCondition } from './conditions';
import { actionEntriesOf, destinationPaceOf, DestinationSettings } from '../../destinations/registry';

/** What planning reads of the config: the time-out of an action that sets none, and the destinations' limits. */
export interface Planning {
  readonly defaultTimeoutSecs: number;
  readonly destinations: DestinationSettings;
}

/**
 * One action per webhook and queue entry of one trigger at one version, for one signal; an
 * action whose destination has a limit records the limit's key (the worker reads the limit itself).
 */
export const actionsOf = (
  trigger: { id: string; version: number; definition: TriggerDefinition },
  signalId: string,
  planning: Planning,
): ActionPlan[] => {
  const base = { triggerId: trigger.id, version: trigger.version };
  return actionEntriesOf(trigger.definition).map(({ kind, index, timeoutSecs, entry }) => {
    const pace = destinationPaceOf(planning.destinations, kind, entry);
    return {
      ...base,
      kind,
      index,
      deliveryId: deliveryIdOf(signalId, trigger.id, kind, index),
      timeoutSecs: timeoutSecs ?? planning.defaultTimeoutSecs,
      ...(pace ? { pace: pace.key } : {}),
    };
  });
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
export const planDispatch = (readModel: TriggerMatcher, planning: Planning, signal: SignalEnvelope): DispatchPlan =>
  planOf(byCondition(readModel.matching(signal.signal, signal.app_label, signal.model_name), signal).held, signal, planning);

/** The plan of a signal for the triggers it matched. */
export const planOf = (
  views: ReadonlyArray<{ id: string; version: number; definition: TriggerDefinition }>,
  signal: SignalEnvelope,
  planning: Planning,
): DispatchPlan => {
  const actions = views.flatMap((view) => actionsOf(view, signal.id, planning));
  return {
    triggers: views.map((v) => ({
      triggerId: v.id,
      version: v.version,
      ...(v.definition.ordering === 'per_instance' ? { ordering: orderingFor(v.id, signal) } : {}),
    })),
    actions,
  };
};
