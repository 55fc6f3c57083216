import { ApplicationFailure, defineQuery, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { DispatchInput, DispatchStatus } from '../dispatch/types';
import { FailedTriggerIds, searchableTriggerIds } from '../dispatch/search-attributes';
import { runActions } from './actions';
import { inOrderOf, runInOrder } from './in-order';
import { takeCancels } from './cancellation';
import { takePlaces } from './paced';

export const statusQuery = defineQuery<DispatchStatus>('status');

/**
 * An input without its plan or how its attempts run was started by a release whose shapes are
 * retired (docs/decisions.md): the dispatch fails at once, saying so, instead of failing its
 * workflow task for ever.
 */
const refuseRetiredInput = (input: DispatchInput) => {
  if (input.plan && input.attemptsAs) return;
  throw ApplicationFailure.nonRetryable(
    'this dispatch was started by a release whose workflow shape is retired (its input has no plan or attemptsAs): this release cannot run it',
    'RetiredShape',
  );
};

/**
 * One workflow per accepted signal (id `signal-<signal id>`): the matching triggers (planned by
 * the API at acceptance and recorded in the input), then every action concurrently: first
 * attempts locally (small dispatches) or in batches (larger ones), the later attempts of each
 * action its own activity with its own time-out and retries. The actions of a trigger that
 * delivers in order per instance wait for their turn (in-order.ts). A failing action never
 * stops the others; a cancel (cancellation.ts) ends the actions it names. The result lists
 * every outcome.
 */
export async function dispatchSignal(input: DispatchInput): Promise<DispatchStatus> {
  const status: DispatchStatus = { signalId: input.signal.id, state: 'matching', triggers: [], actions: [] };
  setHandler(statusQuery, () => status);
  takeCancels(status);
  takePlaces(status);
  refuseRetiredInput(input);
  const { plan } = input;
  status.triggers = plan.triggers;
  status.actions = plan.actions.map((a) => ({ ...a, state: 'pending', attempts: 0, warnings: [] }));
  status.state = 'running';
  const inOrder = inOrderOf(input, plan);
  if (input.turns && inOrder.length > 0) await runInOrder(input, input.turns, plan, status.actions, inOrder);
  else await runActions(input, plan.actions, status.actions);
  const failed = status.actions.filter((a) => a.state === 'failed');
  if (input.marksFailed && failed.length > 0) upsertSearchAttributes([{ key: FailedTriggerIds, value: searchableTriggerIds(failed) }]);
  status.state = 'completed';
  return status;
}
