import { allHandlersFinished, condition, proxyLocalActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { DispatchActivities } from '../dispatch/activities';
import type { ActionOutcome, DispatchInput, DispatchPlan, DispatchTurns } from '../dispatch/types';
import { orderOf, TurnArgs, turnSignal } from '../dispatch/ordering';
import { runActions } from './actions';

/** A `per_instance` trigger of this dispatch and its order (its stream in our store). */
export interface InOrder {
  triggerId: string;
  orderWorkflowId: string;
}

/**
 * The triggers whose actions wait for their turn: only in a signal's own dispatch, queued in its
 * instance orders (`turns`; a redelivery is sent at once).
 */
export const inOrderOf = (input: DispatchInput, plan: DispatchPlan): InOrder[] =>
  input.redeliveryOf || !input.turns
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

/** Runs each `per_instance` trigger's actions in its turn; the other actions at once. */
export const runInOrder = async (
  input: DispatchInput,
  turns: DispatchTurns,
  plan: DispatchPlan,
  outcomes: ActionOutcome[],
  inOrder: readonly InOrder[],
) => {
  const run: Run = (indices, batchIds, endsTurn) =>
    runActions(
      input,
      indices.map((i) => plan.actions[i]!),
      indices.map((i) => outcomes[i]!),
      batchIds,
      endsTurn,
    );
  await runWithStoreTurns(turns, plan, outcomes, inOrder, run);
  await condition(allHandlersFinished);
};
