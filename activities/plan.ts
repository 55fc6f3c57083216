import type { ActionPlan, MatchedTrigger, SignalEnvelope } from '../src/dispatch/types';
import { deliveryIdOf } from '../src/dispatch/types';
import { ReadModel } from '../projections/read-model';

export interface PlanDeps {
  readonly readModel: ReadModel;
  readonly defaultTimeoutSecs: number;
}

/** The active triggers matching a signal, and one action per webhook and queue entry. */
export const createPlanActions = (deps: PlanDeps) => async (signal: SignalEnvelope): Promise<{ triggers: MatchedTrigger[]; actions: ActionPlan[] }> => {
  const views = deps.readModel.matching(signal.signal, signal.app_label, signal.model_name);
  const actions: ActionPlan[] = [];
  for (const view of views) {
    const base = { triggerId: view.id, version: view.version };
    view.definition.webhooks.forEach((w, index) => actions.push({
      ...base, kind: 'webhook', index, deliveryId: deliveryIdOf(signal.id, view.id, 'webhook', index),
      timeoutSecs: w.timeout_secs ?? deps.defaultTimeoutSecs,
    }));
    view.definition.msg_broker_queues.forEach((q, index) => actions.push({
      ...base, kind: 'broker', index, deliveryId: deliveryIdOf(signal.id, view.id, 'broker', index),
      timeoutSecs: q.timeout_secs ?? deps.defaultTimeoutSecs,
    }));
  }
  return { triggers: views.map((v) => ({ triggerId: v.id, version: v.version })), actions };
};
