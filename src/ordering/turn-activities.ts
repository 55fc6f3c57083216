import { Context } from '@temporalio/activity';
import type { EventStore } from '../event-store/port';
import { createTurnStore } from './turn-store';
import { giveTurnThrough } from '../temporal/give-turn';
import type { TurnArgs } from '../dispatch/ordering';

/**
 * A dispatch's turns in its instance orders, in our store (src/ordering/turns.ts), run as local
 * activities by the dispatch workflow; the next dispatch is told through the worker's client.
 */
export const turnActivities = (store: EventStore) => {
  const turns = createTurnStore(store);
  // Inside a delivery's attempt: a next dispatch not started yet is left to the workflow's own end of the turn.
  const turnsAtOnce = createTurnStore(store, 0);
  const give = () => giveTurnThrough(Context.current().client);
  return {
    /**
     * Ends the turn from the attempt that delivered the trigger's only action in the order (true),
     * or leaves it to the workflow (false: the store or Temporal failed, or the next has not started).
     */
    endTurnOnDelivery: async ({ orderId, workflowId, position, triggerId }: TurnArgs): Promise<boolean> =>
      turnsAtOnce.end(orderId, { workflowId, position }, triggerId, give()).then(
        () => true,
        () => false,
      ),
    /** A waiting dispatch's check: whether it is its turn, once a dispatch before it that closed without ending its turn was passed over. */
    takeTurn: ({ orderId, workflowId, position, triggerId }: TurnArgs): Promise<boolean> =>
      turns.isTurn(orderId, { workflowId, position }, triggerId, give()),
    /** The dispatch's actions of the trigger ended: the next dispatch's turn. */
    endTurn: ({ orderId, workflowId, position, triggerId }: TurnArgs): Promise<void> =>
      turns.end(orderId, { workflowId, position }, triggerId, give()),
  };
};
