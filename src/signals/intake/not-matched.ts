import type { WatchingTrigger } from '../../projections/read-model';
import type { MatchedTrigger, SignalEnvelope } from '../../dispatch/types';
import type { NotMatched } from '../../model/signals/signal-record';

/** How many unmatched triggers one signal's record names; the rest are only counted. */
export const MAX_NOT_MATCHED = 20;

/** A matched trigger whose condition did not hold, with the clause that did not. */
export interface ConditionFailed {
  view: { id: string; version: number };
  result: { clause: string; detail: string };
}

/**
 * The triggers that watch the signal's content type (read without their definitions, so a signal
 * costs little here) but were not matched, and why: their condition was false (listed first:
 * the likeliest question), inactive, or watching other signals.
 */
export const notMatchedOf = (
  watchingAll: readonly WatchingTrigger[],
  signal: SignalEnvelope,
  matched: readonly MatchedTrigger[],
  conditionFailed: readonly ConditionFailed[] = [],
) => {
  const seen = new Set([...matched.map((m) => m.triggerId), ...conditionFailed.map((f) => f.view.id)]);
  const watching = watchingAll.filter((t) => !seen.has(t.id));
  const falseConditions = conditionFailed.map(({ view, result }): NotMatched => ({
    trigger_id: view.id,
    version: view.version,
    reason: 'condition_false',
    clause: result.clause,
    detail: result.detail,
  }));
  const others = watching.flatMap((t): NotMatched[] => {
    if (!t.active) return [{ trigger_id: t.id, version: t.version, reason: 'inactive' }];
    // Active and watching this signal, yet not matched: a later trigger past the read's limit.
    if (t.signals.includes(signal.signal)) return [];
    return [{ trigger_id: t.id, version: t.version, reason: 'another_signal', watches: t.signals }];
  });
  return {
    not_matched: [...falseConditions, ...others].slice(0, MAX_NOT_MATCHED),
    not_matched_truncated: falseConditions.length + watching.length > MAX_NOT_MATCHED,
  };
};
