import type { ReadModel } from '../../projections/read-model';
import type { DispatchPlan, SignalEnvelope } from '../../dispatch/types';
import type { NotMatched } from '../../model/signals/signal-record';
import { Planning, planOf } from '../../model/signals/matching';
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
  (readModel: ReadModel, planning: Planning) =>
  (signal: SignalEnvelope): Matched => {
    const found = readModel.forSignal(signal.signal, signal.app_label, signal.model_name, MAX_NOT_MATCHED + 1);
    const { held, failed } = byCondition(found.matching, signal);
    const plan = planOf(held, signal, planning);
    return { plan, ...notMatchedOf(found.watching, signal, plan.triggers, failed) };
  };

/** How long a request's matching runs before it lets the event loop answer others (health probes first). */
const MATCH_SLICE_MS = 10;

/**
 * Matches a request's signals in turn, giving the event loop back every MATCH_SLICE_MS: one
 * request of 500 signals, each up to its step budget, never holds the API's other requests.
 * Each signal is still matched in one read of the read model.
 */
export const matchEach = async (signals: readonly SignalEnvelope[], match: (signal: SignalEnvelope) => Matched): Promise<Matched[]> => {
  const out: Matched[] = [];
  // Parsing and checking the request took a slice already.
  let sliceStart = -Infinity;
  for (const signal of signals) {
    if (performance.now() - sliceStart >= MATCH_SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
    out.push(match(signal));
  }
  return out;
};
