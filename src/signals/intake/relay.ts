import { randomUUID } from 'node:crypto';
import type { GiveTurn } from '../../dispatch/ordering';
import type { Checkpoint, EventStore } from '../../event-store/port';
import type { Logger } from '../../kernel/logger';
import { acquireLease, Lease, leaseEnds, renewLease } from '../../model/signals/relay-lease';
import { InstanceQueues } from '../../ordering/instance-orders';
import { createTurnStore } from '../../ordering/turn-store';
import { relayBatches } from './relay-batches';
import { LeaseLost, MAX_BACKOFF_MS, RelayRun, wakeablePauses } from './relay-run';
import { relayStarts, StartDispatch } from './relay-starts';

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

const CHECKPOINT_SAVE_MS = 200;

/**
 * Starts the dispatch of every stored signal that matched something, in the order stored, from
 * the checkpoint kept with the lease (src/model/signals/relay-lease.ts): one relay at a time among all processes
 * on the store. Woken by each local append; others' appends are seen within `pollMs`. While
 * Temporal is unreachable it retries with backoff and the backlog stays in the store.
 * This file is the lease loop; starting one dispatch is relay-starts.ts, the start queue and its
 * checkpoint relay-batches.ts.
 */
export const startRelay = (o: RelayOptions): Relay => {
  const holder = `${process.pid}-${randomUUID()}`;
  const leaseMs = o.leaseMs ?? 5000;
  const pollMs = o.pollMs ?? 10;
  const concurrency = o.concurrency ?? 16;
  let stopped = false;
  let lease: Lease | undefined;
  let checkpoint: Checkpoint = 'start';
  let waiting: string | undefined;
  const { pause, wake } = wakeablePauses();
  const run: RelayRun = {
    holding: () => !stopped && lease !== undefined,
    pause,
    waiting: (reason) => {
      waiting = reason;
    },
    log: o.log,
  };
  const turns = createTurnStore(o.store);
  const startUntilDone = relayStarts({ store: o.store, start: o.start, giveTurn: o.giveTurn, turns }, run);

  /** Dispatches are queued in their instance orders in store order, retried until the store takes them (they start after). */
  const newQueues = () =>
    new InstanceQueues({
      turns,
      holding: run.holding,
      gone: () => new LeaseLost(),
      retryPause: async (attempt, e) => {
        waiting = e instanceof Error ? e.message : String(e);
        o.log.warn('could not queue dispatches in their instance order; retrying', { error: waiting });
        await pause(Math.min(MAX_BACKOFF_MS, 100 * 2 ** (attempt - 1)));
      },
    });

  // Renewals run one after another; each also saves the checkpoint.
  let renewing = Promise.resolve();
  let renewedAt = 0;
  const renew = () =>
    (renewing = renewing.then(async () => {
      if (!lease) return;
      renewedAt = Date.now();
      try {
        lease = await renewLease(o.store, lease, checkpoint, stopped ? 0 : leaseMs);
      } catch (e) {
        o.log.warn('could not renew the relay lease', { error: String(e) });
      }
      if (!lease) wake();
    }));

  // Saved at most CHECKPOINT_SAVE_MS after it moves (a save just made is followed by one more), so
  // every process sees `queued` end and the backlog shrink that soon, not at the next renewal.
  let saveTimer: NodeJS.Timeout | undefined;
  const moved = (to: Checkpoint) => {
    checkpoint = to;
    if (saveTimer) return;
    saveTimer = setTimeout(
      () => {
        saveTimer = undefined;
        void renew();
      },
      Math.max(0, CHECKPOINT_SAVE_MS - (Date.now() - renewedAt)),
    );
  };

  /** While holding: follow the signals, renewing the lease every third of its time. */
  const relayWhileHolding = async () => {
    checkpoint = lease!.checkpoint;
    const batches = relayBatches({ startUntilDone, queues: newQueues(), concurrency, moved }, run);
    const timer = setInterval(() => void renew(), leaseMs / 3);
    const subscription = o.store.subscribe(
      checkpoint,
      batches.relayBatch,
      (e) => {
        if (!(e instanceof LeaseLost)) o.log.error('relay failed; retrying', { error: String(e) });
      },
      { category: 'signal', pollMs },
    );
    while (lease && !stopped) await pause(leaseMs);
    clearInterval(timer);
    await subscription.close();
    await batches.drained();
    clearTimeout(saveTimer);
    saveTimer = undefined;
    // Saves the checkpoint; on stop, also lets another relay take over at once.
    await renew();
  };

  /**
   * How long a relay without the lease waits before trying again: until the holder's lease ends
   * (a holder that died is replaced within its lease time, not up to half a lease later), at
   * most half a lease (a holder that stopped cleanly gives it up at once).
   */
  const untilLeaseEnds = async () => {
    const ends = await leaseEnds(o.store).catch(() => undefined);
    return ends === undefined ? leaseMs / 2 : Math.min(leaseMs / 2, Math.max(20, ends - Date.now() + 20));
  };

  const running = (async () => {
    while (!stopped) {
      let failed = false;
      try {
        lease = await acquireLease(o.store, holder, leaseMs);
      } catch (e) {
        failed = true;
        o.log.warn('could not read the relay lease', { error: String(e) });
      }
      if (lease) await relayWhileHolding();
      // A store that fails (appends refused, reads working) is not asked again at once.
      else await pause(failed ? leaseMs / 2 : await untilLeaseEnds());
    }
  })();

  return {
    status: () => ({ holding: lease !== undefined, checkpoint, ...(waiting ? { waiting } : {}) }),
    stop: async () => {
      stopped = true;
      wake();
      await running;
    },
  };
};
