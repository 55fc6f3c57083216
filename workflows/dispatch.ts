import {
  allHandlersFinished, condition, defineQuery, proxyLocalActivities, setHandler, upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ActionOutcome, DispatchInput, DispatchPlan, DispatchStatus } from '../src/dispatch/types';
import { FailedTriggerIds, searchableTriggerIds, TriggerIds } from '../src/dispatch/search-attributes';
import { orderOf, turnSignal } from '../src/dispatch/ordering';
import { runActions } from './actions';
import { sendOrderSignal } from './order-signals';

export const statusQuery = defineQuery<DispatchStatus>('status');

/**
 * Matching for dispatches started before the API planned them: a quick read of the worker's
 * own read model, as a local activity (no round trip through the server), retried until it works.
 */
const { planActions } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/** A `per_instance` trigger of this dispatch and the workflow that gives it its turn. */
interface InOrder { triggerId: string; orderWorkflowId: string }

/**
 * The triggers whose actions wait for their turn: only in a signal's own dispatch planned with an
 * instance key (a redelivery is sent at once; dispatches planned before ordering have none).
 */
const inOrderOf = (input: DispatchInput, plan: DispatchPlan): InOrder[] => (input.redeliveryOf || !input.plan ? [] : plan.triggers.flatMap((t) => {
  const o = orderOf(t);
  return o ? [{ triggerId: t.triggerId, orderWorkflowId: o.orderWorkflowId }] : [];
}));

/**
 * Runs each `per_instance` trigger's actions when its order says it is this dispatch's turn, and
 * then tells the order they ended; a turn heard again after that (a new run of the order) is
 * answered the same way. The other actions run at once.
 */
const runInOrder = async (input: DispatchInput, plan: DispatchPlan, outcomes: ActionOutcome[], inOrder: readonly InOrder[]) => {
  const turns = new Set<string>();
  const ended = new Set<string>();
  // An order that no longer runs waits for nothing.
  const tellEnded = (o: InOrder) => sendOrderSignal(input.orderSignalsBy, { workflowId: o.orderWorkflowId, signal: 'done', arg: workflowInfo().workflowId });
  setHandler(turnSignal, async (triggerId) => {
    turns.add(triggerId);
    const o = inOrder.find((x) => x.triggerId === triggerId);
    if (o && ended.has(triggerId)) await tellEnded(o);
  });
  const ofTrigger = (id: string | undefined) => plan.actions.flatMap((a, i) => ((inOrder.some((o) => o.triggerId === a.triggerId) ? a.triggerId : undefined) === id ? [i] : []));
  const run = (indices: number[], batchIds?: string) => runActions(input, indices.map((i) => plan.actions[i]!), indices.map((i) => outcomes[i]!), batchIds);
  await Promise.all([
    run(ofTrigger(undefined)),
    ...inOrder.map(async (o) => {
      const indices = ofTrigger(o.triggerId);
      for (const i of indices) outcomes[i]!.state = 'waiting';
      await condition(() => turns.has(o.triggerId));
      for (const i of indices) outcomes[i]!.state = 'pending';
      await run(indices, `${o.triggerId}-`);
      ended.add(o.triggerId);
      await tellEnded(o);
    }),
  ]);
  await condition(allHandlersFinished);
};

/**
 * One workflow per accepted signal (id `signal-<signal id>`): the matching triggers (planned by
 * the API at acceptance and recorded in the input), then every action concurrently: first
 * attempts locally (small dispatches), in batches (larger ones) or as activities (older ones),
 * the later attempts of each action its own activity with its own time-out and retries. The
 * actions of a trigger that delivers in order per instance wait for their turn
 * (instance-order.ts). A failing action never stops the others; the result lists every outcome.
 */
export async function dispatchSignal(input: DispatchInput): Promise<DispatchStatus> {
  const status: DispatchStatus = { signalId: input.signal.id, state: 'matching', triggers: [], actions: [] };
  setHandler(statusQuery, () => status);
  // Dispatches started before the API planned them ask the worker's read model, as they did.
  const plan = input.plan ?? await planActions(input.signal);
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
