import type { ReadModel } from '../../projections/read-model';
import type { ActionPlan, DispatchPlan, SignalEnvelope } from './types';
import { deliveryIdOf } from './types';

/**
 * The active triggers matching a signal, and one action per webhook and queue entry: only
 * references (id, version, index), never a definition, so nothing secret enters the history.
 */
export const planDispatch = (readModel: ReadModel, defaultTimeoutSecs: number, signal: SignalEnvelope): DispatchPlan => {
  const views = readModel.matching(signal.signal, signal.app_label, signal.model_name);
  const actions: ActionPlan[] = [];
  for (const view of views) {
    const base = { triggerId: view.id, version: view.version };
    view.definition.webhooks.forEach((w, index) => actions.push({
      ...base, kind: 'webhook', index, deliveryId: deliveryIdOf(signal.id, view.id, 'webhook', index),
      timeoutSecs: w.timeout_secs ?? defaultTimeoutSecs,
    }));
    view.definition.msg_broker_queues.forEach((q, index) => actions.push({
      ...base, kind: 'broker', index, deliveryId: deliveryIdOf(signal.id, view.id, 'broker', index),
      timeoutSecs: q.timeout_secs ?? defaultTimeoutSecs,
    }));
  }
  return { triggers: views.map((v) => ({ triggerId: v.id, version: v.version })), actions };
};
