import { allHandlersFinished, condition, proxyLocalActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { DispatchActivities } from '../dispatch/activities';
import type { ActionOutcome, DispatchInput, DispatchPlan, DispatchTurns } from '../dispatch/types';
import { orderOf, TurnArgs, turnSignal } from '../dispatch/ordering';
import { runActions } from './actions';
import { sendOrderSignal } from './order-signals';

/** A `per_instance` trigger of this dispatch and its order (the order's workflow, or its stream in our store). */
export interface InOrder {
  triggerId: string;
  orderWorkflowId: string;
}

/**
 * The triggers whose actions wait for their turn: only in a signal's own dispatch planned with an
 * instance key (a redelivery is sent at once; dispatches planned before ordering have none).
 */
export const inOrderOf = (input: DispatchInput, plan: DispatchPlan): InOrder[] =>
  input.redeliveryOf || !input.plan
    ? []
    : plan.triggers.flatMap((t) => {
        const o = orderOf(t);
        return o ? [{ triggerId: t.triggerId, orderWorkflowId: o.orderWorkflowId }] : [];
      });

/** Turns in our store: quick reads and writes, tried again until they work. */
const { takeTurn, endTurn } = proxyLocalActivities<DispatchActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * How long a dispatch waits for its turn before it looks itself, passing over one before it that
 * closed without ending its turn (terminated by an operator); each wait after that twice the
 * last, up to an hour, so many dispatches waiting behind a stuck receiver cost little. One timer
 * at a time per waiting dispatch; a dispatch whose turn is already its own sets none.
 */
const TURN_CHECK_SECS = 300;
const TURN_CHECK_MAX_SECS = 3600;

/** The actions at `indices` leave `waiting` (those cancelled meanwhile stay cancelled). */
const endWaiting = (outcomes: ActionOutcome[], indices: readonly number[]) => {
  for (const i of indices) if (outcomes[i]!.state === 'waiting') outcomes[i]!.state = 'pending';
};

/** Runs the actions at `indices`; true when their attempt also ended `endsTurn` (runActions). */
type Run = (indices: number[], batchIds?: string, endsTurn?: TurnArgs) => Promise<boolean>;

/** The indices of the actions of trigger `id`, or with undefined those of no trigger in order. */
const indicesOf = (plan: DispatchPlan, inOrder: readonly InOrder[], id: string | undefined) =>
  plan.actions.flatMap((a, i) => ((inOrder.some((o) => o.triggerId === a.triggerId) ? a.triggerId : undefined) === id ? [i] : []));

/**
 * Turns kept in our store (src/ordering/turns.ts): a trigger whose turn the relay saw was already
 * this dispatch's goes at once; another waits for the `turn` signal the dispatch before it sends
 * when its turn ends (it waits for this one to start, if need be). Each ends its turn when its
 * actions ended.
 */
const runWithStoreTurns = async (
  turns: DispatchTurns,
  plan: DispatchPlan,
  outcomes: ActionOutcome[],
  inOrder: readonly InOrder[],
  run: Run,
) => {
  const told = new Set<string>();
  setHandler(turnSignal, (triggerId) => {
    told.add(triggerId);
  });
  const argsOf = (o: InOrder): TurnArgs => ({
    orderId: o.orderWorkflowId,
    workflowId: workflowInfo().workflowId,
    position: turns.position,
    triggerId: o.triggerId,
  });
  await Promise.all([
    run(indicesOf(plan, inOrder, undefined)),
    ...inOrder.map(async (o) => {
      const indices = indicesOf(plan, inOrder, o.triggerId);
      if (!turns.given.includes(o.triggerId)) {
        for (const i of indices) outcomes[i]!.state = 'waiting';
        const first = turns.checkSecs ?? TURN_CHECK_SECS;
        for (
          let secs = first;
          !(await condition(() => told.has(o.triggerId), secs * 1000));
          secs = Math.min(Math.max(first, TURN_CHECK_MAX_SECS), secs * 2)
        ) {
          if (await takeTurn(argsOf(o))) break;
        }
        endWaiting(outcomes, indices);
      }
      if (!(await run(indices, `${o.triggerId}-`, argsOf(o)))) await endTurn(argsOf(o));
    }),
  ]);
};

/**
 * Turns given by an order workflow (src/workflows/instance-order.ts), in dispatches started before
 * turns were kept in the store: each waits for `turn`, then tells the order they ended; a turn
 * heard again after that (a new run of the order) is answered the same way.
 */
const runWithOrderWorkflow = async (
  input: DispatchInput,
  plan: DispatchPlan,
  outcomes: ActionOutcome[],
  inOrder: readonly InOrder[],
  run: Run,
) => {
  const turns = new Set<string>();
  const ended = new Set<string>();
  // An order that no longer runs waits for nothing.
  const tellEnded = (o: InOrder) =>
    sendOrderSignal(input.orderSignalsBy, { workflowId: o.orderWorkflowId, signal: 'done', arg: workflowInfo().workflowId });
  setHandler(turnSignal, async (triggerId) => {
    turns.add(triggerId);
    const o = inOrder.find((x) => x.triggerId === triggerId);
    if (o && ended.has(triggerId)) await tellEnded(o);
  });
  await Promise.all([
    run(indicesOf(plan, inOrder, undefined)),
    ...inOrder.map(async (o) => {
      const indices = indicesOf(plan, inOrder, o.triggerId);
      for (const i of indices) outcomes[i]!.state = 'waiting';
      await condition(() => turns.has(o.triggerId));
      endWaiting(outcomes, indices);
      await run(indices, `${o.triggerId}-`);
      ended.add(o.triggerId);
      await tellEnded(o);
    }),
  ]);
};

/** Runs each `per_instance` trigger's actions in its turn; the other actions at once. */
export const runInOrder = async (input: DispatchInput, plan: DispatchPlan, outcomes: ActionOutcome[], inOrder: readonly InOrder[]) => {
  const run: Run = (indices, batchIds, endsTurn) =>
    runActions(
      input,
      indices.map((i) => plan.actions[i]!),
      indices.map((i) => outcomes[i]!),
      batchIds,
      endsTurn,
    );
  if (input.turns) await runWithStoreTurns(input.turns, plan, outcomes, inOrder, run);
  else await runWithOrderWorkflow(input, plan, outcomes, inOrder, run);
  await condition(allHandlersFinished);
};
