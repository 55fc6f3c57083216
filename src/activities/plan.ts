import type { DispatchPlan, SignalEnvelope } from '../dispatch/types';
import { planDispatch, TriggerMatcher } from '../model/signals/matching';

export interface PlanDeps {
  /** The read model, opened when first asked (a worker-only process plans rarely). */
  readonly triggers: () => Promise<TriggerMatcher>;
  readonly defaultTimeoutSecs: number;
}

/**
 * Matching for dispatches started before the API planned them (their input has no plan):
 * the same planning on the worker's read model, as a local activity.
 */
export const createPlanActions =
  (deps: PlanDeps) =>
  async (signal: SignalEnvelope): Promise<DispatchPlan> =>
    planDispatch(await deps.triggers(), deps.defaultTimeoutSecs, signal);
