import type { EventStore } from '../event-store/port';
import type { GiveTurn } from '../dispatch/ordering';
import { isTurnOf, QUEUED, QueuedDispatch, SKIPPED, TURN_ENDED, TurnState, turnStateOf } from './turns';

/** An order's stream is cut once it holds this many events (each cut is a write: not after every turn). */
const CUT_AFTER = 64;
/**
 * How long passing a turn waits for the next dispatch to start before it fails (and its caller
 * tries again): the relay starts a dispatch just after writing it, unless Temporal is away.
 */
const NOT_STARTED_WAIT_MS = 10_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One trigger's order for one instance in the store (turns.ts): stream id = the order's id. */
export const createTurnStore = (store: Pick<EventStore, 'append' | 'read' | 'truncateBefore'>, notStartedWaitMs = NOT_STARTED_WAIT_MS) => {
  const stateOf = async (orderId: string): Promise<TurnState> => {
    const events = await store.read(orderId);
    const state = turnStateOf(events);
    if (events.length >= CUT_AFTER && state.cutBefore !== undefined && state.cutBefore > events[0]!.revision) {
      await store.truncateBefore(orderId, state.cutBefore);
    }
    return state;
  };
  const appendAll = (orderId: string, type: string, entries: readonly QueuedDispatch[]) =>
    store.append(
      orderId,
      entries.map((e) => ({ type, data: { workflowId: e.workflowId, position: e.position }, metadata: {} })),
      'any',
    );

  /**
   * Gives the turn to the first dispatch waiting, ending it for those that no longer run. A
   * waiting dispatch never reads its turn itself, so one not started yet is waited for: it is
   * told once it runs (here, or when the caller tries again).
   */
  const passTurn = async (orderId: string, triggerId: string, give: GiveTurn) => {
    for (let waited = 0, pauseMs = 10; ;) {
      const next = (await stateOf(orderId)).pending[0];
      if (!next) return;
      const given = await give(next.workflowId, triggerId);
      if (given === 'given') return;
      if (given === 'closed') {
        await appendAll(orderId, TURN_ENDED, [next]);
        continue;
      }
      if (waited >= notStartedWaitMs) throw new Error(`${next.workflowId}, next in its instance order, has not started yet`);
      await sleep(pauseMs);
      waited += pauseMs;
      pauseMs = Math.min(1000, pauseMs * 2);
    }
  };

  return {
    /**
     * Whether no dispatch waits or runs in the order. A stream longer than a cut leaves is not
     * read through (a busy order: its dispatch waits to be told): the relay's reads stay small
     * however many wait.
     */
    isIdle: async (orderId: string) => {
      const events = await store.read(orderId, { direction: 'backwards', maxCount: CUT_AFTER + 1 });
      return events.length <= CUT_AFTER && turnStateOf(events.reverse()).pending.length === 0;
    },
    /** Queues dispatches, in this order. */
    queue: async (orderId: string, entries: readonly QueuedDispatch[]) => {
      await appendAll(orderId, QUEUED, entries);
    },
    /**
     * Whether it is the dispatch's turn. With `giveTurn` (a waiting dispatch's occasional check),
     * a dispatch before it whose workflow closed without ending its turn has it ended first.
     */
    isTurn: async (orderId: string, d: QueuedDispatch, triggerId: string, giveTurn?: GiveTurn): Promise<boolean> => {
      const state = await stateOf(orderId);
      if (isTurnOf(state, d)) return true;
      if (!giveTurn) return false;
      await passTurn(orderId, triggerId, giveTurn);
      return isTurnOf(await stateOf(orderId), d);
    },
    /** The dispatch's turn ended: the next one's begins. */
    end: async (orderId: string, d: QueuedDispatch, triggerId: string, giveTurn: GiveTurn) => {
      await appendAll(orderId, TURN_ENDED, [d]);
      await passTurn(orderId, triggerId, giveTurn);
    },
    /** A queued dispatch that will never start: it is passed over. */
    skip: async (orderId: string, d: QueuedDispatch, triggerId: string, giveTurn: GiveTurn) => {
      await appendAll(orderId, SKIPPED, [d]);
      await passTurn(orderId, triggerId, giveTurn);
    },
  };
};

export type TurnStore = ReturnType<typeof createTurnStore>;
