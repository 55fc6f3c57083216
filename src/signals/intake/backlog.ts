import { EventStore } from '../../event-store/port';
import { DispatchClient } from '../../temporal/dispatch-client';
import { Relay } from './relay';
import { relayCheckpoint } from '../../model/signals/relay-lease';

/** Counting stops here: enough to tell an operator the backlog is large. */
const BACKLOG_CAP = 1_000_000;

/** Signals stored but not yet handed to Temporal (unmatched ones included, until the relay passes them). */
export const relayBacklogOf = async (store: EventStore) => store.countAfter('signal', await relayCheckpoint(store), BACKLOG_CAP);

/** What `/readyz` says of dispatch: informational, since intake works while Temporal is away. */
export const dispatchInfo = async (store: EventStore, dispatch: DispatchClient, relay: Relay | undefined) => {
  const [reachable, backlog] = await Promise.all([dispatch.reachable(), relayBacklogOf(store)]);
  const mine = relay?.status();
  return {
    temporal: reachable ? 'reachable' : 'unreachable',
    /** Signals stored but not yet handed to Temporal (unmatched ones included, until the relay passes them). */
    backlog,
    ...(mine?.holding ? { relay: 'this process', ...(mine.waiting ? { relay_waiting_on: mine.waiting } : {}) } : {}),
  };
};
