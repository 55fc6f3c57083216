import { defineQuery, proxyLocalActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { DispatchActivities } from '../dispatch/activities';
import type { DispatchInput, DispatchStatus } from '../dispatch/types';
import { FailedTriggerIds, searchableTriggerIds, TriggerIds } from '../dispatch/search-attributes';
import { runActions } from './actions';
import { inOrderOf, runInOrder } from './in-order';
import { takeCancels } from './cancellation';

export const statusQuery = defineQuery<DispatchStatus>('status');

/**
 * Matching for dispatches started before the API planned them: a quick read of the worker's
 * own read model, as a local activity (no round trip through the server), retried until it works.
 */
const { planActions } = proxyLocalActivities<DispatchActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * One workflow per accepted signal (id `signal-<signal id>`): the matching triggers (planned by
 * the API at acceptance and recorded in the input), then every action concurrently: first
 * attempts locally (small dispatches), in batches (larger ones) or as activities (older ones),
 * the later attempts of each action its own activity with its own time-out and retries. The
 * actions of a trigger that delivers in order per instance wait for their turn (in-order.ts).
 * A failing action never stops the others; a cancel (cancellation.ts) ends the actions it names.
 * The result lists every outcome.
 */
export async function dispatchSignal(input: DispatchInput): Promise<DispatchStatus> {
  const status: DispatchStatus = { signalId: input.signal.id, state: 'matching', triggers: [], actions: [] };
  setHandler(statusQuery, () => status);
  takeCancels(status);
  // Dispatches started before the API planned them ask the worker's read model, as they did.
  const plan = input.plan ?? (await planActions(input.signal));
  status.triggers = plan.triggers;
  status.actions = plan.actions.map((a) => ({ ...a, state: 'pending', attempts: 0, warnings: [] }));
  if (!input.plan && plan.triggers.length > 0) upsertSearchAttributes([{ key: TriggerIds, value: searchableTriggerIds(plan.triggers) }]);
  status.state = 'running';
  const inOrder = inOrderOf(input, plan);
  if (inOrder.length > 0) await runInOrder(input, plan, status.actions, inOrder);
  else await runActions(input, plan.actions, status.actions);
  const failed = status.actions.filter((a) => a.state === 'failed');
  if (input.marksFailed && failed.length > 0) upsertSearchAttributes([{ key: FailedTriggerIds, value: searchableTriggerIds(failed) }]);
  status.state = 'completed';
  return status;
}
