import { signalIdOfWorkflow } from '../../dispatch/types';
import { BULK_REDELIVERY_CONCURRENCY, MAX_BULK_REDELIVERIES } from '../../kernel/limits';
import { RedeliveryDeps, requestRedelivery } from './redeliver';

export interface BulkRedelivered {
  /** Signals whose failed actions of the trigger were queued for a redelivery. */
  redelivered: number;
  /** Signals found failed but not redelivered, by reason: a dispatch still running or queued, nothing left to send, no longer stored. */
  skipped: { busy: number; nothing_left: number; not_stored: number };
  /** More failed dispatches matched than one request handles (MAX_BULK_REDELIVERIES): ask again. */
  truncated: boolean;
}

/**
 * Every signal with a dispatch since `since` in which an action of the trigger failed for good
 * (Temporal visibility: `FailedTriggerIds`), redelivered as dispatched: the trigger's actions that
 * no dispatch of the signal delivered. Asking again skips what is already redelivered.
 */
export const redeliverFailed = async (deps: RedeliveryDeps, triggerId: string, since: Date): Promise<BulkRedelivered> => {
  const workflowIds = await deps.dispatch.failedSince(triggerId, since, MAX_BULK_REDELIVERIES + 1);
  const signalIds = [...new Set(workflowIds.map(signalIdOfWorkflow))];
  const counts: BulkRedelivered = {
    redelivered: 0,
    skipped: { busy: 0, nothing_left: 0, not_stored: 0 },
    truncated: signalIds.length > MAX_BULK_REDELIVERIES,
  };
  const todo = signalIds.slice(0, MAX_BULK_REDELIVERIES);
  let next = 0;
  let failed = false;
  // A few signals at a time: each asks Temporal for its dispatches' states (one after another,
  // 500 took seconds). The first error stops the others from taking more (the caller answers 503).
  const work = async () => {
    while (!failed && next < todo.length) {
      const r = await requestRedelivery(deps, todo[next++]!, { mode: 'as_dispatched', triggerId }).catch((e: unknown) => {
        failed = true;
        throw e;
      });
      if (r.outcome === 'queued') counts.redelivered++;
      else if (r.outcome === 'busy') counts.skipped.busy++;
      else if (r.outcome === 'unknown') counts.skipped.not_stored++;
      else counts.skipped.nothing_left++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(BULK_REDELIVERY_CONCURRENCY, todo.length) }, work));
  return counts;
};
