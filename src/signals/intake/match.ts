import type { ReadModel } from '../../projections/read-model';
import type { DispatchPlan, SignalEnvelope } from '../../dispatch/types';
import type { NotMatched } from '../../model/signals/signal-record';
import { planOf } from '../../model/signals/matching';
import { byCondition } from '../../model/signals/conditions';
import { MAX_NOT_MATCHED, notMatchedOf } from './not-matched';

/** What intake keeps of matching: the plan, and which triggers watching the content type did not match (or whose condition was false) and why. */
export interface Matched {
  plan: DispatchPlan;
  not_matched: NotMatched[];
  not_matched_truncated: boolean;
}

/** Matches a signal with one read of the read model: its plan and the triggers it did not match, as of one moment. */
export const matchSignal =
  (readModel: ReadModel, defaultTimeoutSecs: number) =>
  (signal: SignalEnvelope): Matched => {
    const found = readModel.forSignal(signal.signal, signal.app_label, signal.model_name, MAX_NOT_MATCHED + 1);
    const { held, failed } = byCondition(found.matching, signal);
    const plan = planOf(held, signal, defaultTimeoutSecs);
    return { plan, ...notMatchedOf(found.watching, signal, plan.triggers, failed) };
  };
