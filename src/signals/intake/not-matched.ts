import type { WatchingTrigger } from '../../projections/read-model';
import type { MatchedTrigger, SignalEnvelope } from '../../dispatch/types';
import type { NotMatched } from '../../model/signals/signal-record';

/** How many unmatched triggers one signal's record names; the rest are only counted. */
export const MAX_NOT_MATCHED = 20;

/**
 * The triggers that watch the signal's content type (read without their definitions, so a signal
 * costs little here) but were not matched, and why: inactive, or watching other signals.
 */
export const notMatchedOf = (watchingAll: readonly WatchingTrigger[], signal: SignalEnvelope, matched: readonly MatchedTrigger[]) => {
  const matchedIds = new Set(matched.map((m) => m.triggerId));
  const watching = watchingAll.filter((t) => !matchedIds.has(t.id));
  const listed: NotMatched[] = watching.slice(0, MAX_NOT_MATCHED).flatMap((t): NotMatched[] => {
    if (!t.active) return [{ trigger_id: t.id, version: t.version, reason: 'inactive' }];
    // Active and watching this signal, yet not matched: a later trigger past the read's limit.
    if (t.signals.includes(signal.signal)) return [];
    return [{ trigger_id: t.id, version: t.version, reason: 'another_signal', watches: t.signals }];
  });
  return { not_matched: listed, not_matched_truncated: watching.length > MAX_NOT_MATCHED };
};
