import { randomUUID } from 'node:crypto';
import type { GiveTurn } from '../../dispatch/ordering';
import type { Checkpoint, EventStore } from '../../event-store/port';
import type { Logger } from '../../kernel/logger';
import { acquireLease } from '../../model/signals/relay-lease';
import { InstanceQueues } from '../../ordering/instance-orders';
import { createTurnStore, TurnStore } from '../../ordering/turn-store';
import { relayBatches } from './relay-batches';
import { LeaseLost, MAX_BACKOFF_MS, RelayRun, wakeablePauses } from './relay-run';
import { relayStarts, StartDispatch } from './relay-starts';
import { leaseRenewals, LeaseState, untilLeaseEnds } from './relay-renewals';

export interface RelayOptions {
  readonly store: EventStore;
  /** Starts one signal's dispatch (or a redelivery), in the trace of the request that stored it. */
  readonly start: StartDispatch;
  /** Gives the next dispatch of an instance order its turn when one queued there can never start (DispatchClient.giveTurn). */
  readonly giveTurn: GiveTurn;
  readonly log: Logger;
  /** How long a lease lasts unless renewed; another relay takes over this long after a holder died. */
  readonly leaseMs?: number;
  /** How soon signals stored by other processes are seen. */
  readonly pollMs?: number;
  /** Starts in flight at once while draining. */
  readonly concurrency?: number;
}

export interface Relay {
  /** Whether this process holds the lease, and how far it got. */
  status(): { holding: boolean; checkpoint: Checkpoint; waiting?: string };
  stop(): Promise<void>;
}

/** Dispatches are queued in their instance orders in store order, retried until the store takes them (they start after). */
const instanceQueues = (turns: TurnStore, run: RelayRun) =>
  new InstanceQueues({
    turns,
    holding: run.holding,
    gone: () => new LeaseLost(),
    retryPause: async (attempt, e) => {
      const reason = e instanceof Error ? e.message : String(e);
      run.waiting(reason);
      run.log.warn('could not queue dispatches in their instance order; retrying', { error: reason });
      await run.pause(Math.min(MAX_BACKOFF_MS, 100 * 2 ** (attempt - 1)));
    },
  });

/**
 * Starts the dispatch of every stored signal that matched something, in the order stored, from
 * the checkpoint kept with the lease (src/model/signals/relay-lease.ts): one relay at a time among all processes
 * on the store. Woken by each local append; others' appends are seen within `pollMs`. While
 * Temporal is unreachable it retries with backoff and the backlog stays in the store.
 * This file is the lease loop; renewing the lease and saving the checkpoint is relay-renewals.ts,
 * starting one dispatch relay-starts.ts, the start queue and its checkpoint relay-batches.ts.
 */
export const startRelay = (o: RelayOptions): Relay => {
  const holder = `${process.pid}-${randomUUID()}`;
  const leaseMs = o.leaseMs ?? 5000;
  const pollMs = o.pollMs ?? 10;
  const concurrency = o.concurrency ?? 16;
  const state: LeaseState = { stopped: false, checkpoint: 'start' };
  let waiting: string | undefined;
  const { pause, wake } = wakeablePauses();
  const run: RelayRun = {
    holding: () => !state.stopped && state.lease !== undefined,
    pause,
    waiting: (reason) => {
      waiting = reason;
    },
    log: o.log,
  };
  const turns = createTurnStore(o.store);
  const startUntilDone = relayStarts({ store: o.store, start: o.start, giveTurn: o.giveTurn, turns }, run);
  const { renew, moved, finalSave } = leaseRenewals(o.store, o.log, state, leaseMs, wake);

  /** While holding: follow the signals, renewing the lease every third of its time. */
  const relayWhileHolding = async () => {
    state.checkpoint = state.lease!.checkpoint;
    const batches = relayBatches({ startUntilDone, queues: instanceQueues(turns, run), concurrency, moved }, run);
    const timer = setInterval(() => void renew(), leaseMs / 3);
    const subscription = o.store.subscribe(
      state.checkpoint,
      batches.relayBatch,
      (e) => {
        if (!(e instanceof LeaseLost)) o.log.error('relay failed; retrying', { error: String(e) });
      },
      { category: 'signal', pollMs },
    );
    while (state.lease && !state.stopped) await pause(leaseMs);
    clearInterval(timer);
    await subscription.close();
    await batches.drained();
    // Saves the checkpoint; on stop, also lets another relay take over at once.
    await finalSave();
  };

  const running = (async () => {
    while (!state.stopped) {
      let failed = false;
      try {
        state.lease = await acquireLease(o.store, holder, leaseMs);
      } catch (e) {
        failed = true;
        o.log.warn('could not read the relay lease', { error: String(e) });
      }
      if (state.lease) await relayWhileHolding();
      // A store that fails (appends refused, reads working) is not asked again at once.
      else await pause(failed ? leaseMs / 2 : await untilLeaseEnds(o.store, leaseMs));
    }
  })();

  return {
    status: () => ({ holding: state.lease !== undefined, checkpoint: state.checkpoint, ...(waiting ? { waiting } : {}) }),
    stop: async () => {
      state.stopped = true;
      wake();
      await running;
    },
  };
};
