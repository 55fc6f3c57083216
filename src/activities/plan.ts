import type { DispatchPlan, SignalEnvelope } from '../dispatch/types';
import { planDispatch } from '../model/signals/matching';
import { ReadModel } from '../projections/read-model';

export interface PlanDeps {
  readonly readModel: ReadModel;
  readonly defaultTimeoutSecs: number;
}

/**
 * Matching for dispatches started before the API planned them (their input has no plan):
 * the same planning on the worker's read model, as a local activity.
 */
export const createPlanActions =
  (deps: PlanDeps) =>
  async (signal: SignalEnvelope): Promise<DispatchPlan> =>
    planDispatch(deps.readModel, deps.defaultTimeoutSecs, signal);
