import { Checkpoint, readable, StoredEvent } from '../../event-store/port';
import { InstanceQueues, ordersOf } from '../../ordering/instance-orders';
import { LeaseLost, RelayRun } from './relay-run';
import { startsDispatch } from './relay-requests';
import type { Queued } from './relay-starts';

export interface BatchesDeps {
  /** Starts one dispatch until done; rejects with LeaseLost once the lease is gone. */
  readonly startUntilDone: (event: StoredEvent, queued?: Queued) => Promise<unknown>;
  /** The relay's instance orders for this holding of the lease. */
  readonly queues: InstanceQueues;
  /** Starts in flight at once while draining. */
  readonly concurrency: number;
  /** Called when the checkpoint moved past batches whose starts have all ended. */
  readonly moved: (checkpoint: Checkpoint) => void;
}

/**
 * The start queue and its checkpoint, for one holding of the lease. Starts share `concurrency`
 * slots across batches, so one slow start never holds back the signals stored after it; the
 * checkpoint moves only past batches whose starts have all ended.
 */
export const relayBatches = (deps: BatchesDeps, run: RelayRun) => {
  let free = deps.concurrency;
  const slotWaiters: Array<() => void> = [];
  const takeSlot = async () => {
    while (free === 0) await new Promise<void>((r) => slotWaiters.push(r));
    free--;
  };
  const freeSlot = () => {
    free++;
    slotWaiters.shift()?.();
  };
  const open: Array<{ position: Checkpoint; left: number }> = [];
  const inFlight = new Set<Promise<void>>();
  const settle = () => {
    let moved: Checkpoint | undefined;
    while (open[0]?.left === 0) moved = open.shift()!.position;
    if (moved !== undefined) deps.moved(moved);
  };

  /** Queues a batch of stored signals' starts in store order; resolves once each has a slot. */
  const relayBatch = async (events: readonly StoredEvent[]) => {
    const starts = events.filter(startsDispatch);
    // Every start counts from the outset: a batch left part-way (the lease lost, a stop) stays open.
    const batch = { position: events[events.length - 1]!.position as Checkpoint, left: starts.length };
    open.push(batch);
    for (const event of starts) {
      await takeSlot();
      if (!run.holding()) {
        freeSlot();
        throw new LeaseLost();
      }
      // Queued now, in store order; it starts once it is known whether its turn is already its own.
      const inOrders = readable(() => ordersOf(event));
      const queued = inOrders && { ...inOrders, ...deps.queues.queue(inOrders.orders, inOrders.dispatch) };
      // A lost lease rejects both: the start and the batch below say so (handled now, not when they get there).
      queued?.given.catch(() => undefined);
      queued?.written.catch(() => undefined);
      // A start (or a write in its orders) that ends without the lease leaves its batch open: the next holder starts it again.
      const started = deps.startUntilDone(event, queued);
      void started.then(freeSlot, freeSlot);
      const done: Promise<void> = started
        .then(() => queued?.written)
        .then(() => {
          batch.left--;
        })
        .catch(() => undefined)
        .finally(() => {
          inFlight.delete(done);
          settle();
        });
      inFlight.add(done);
    }
    settle();
  };

  return {
    relayBatch,
    /** Waits for every start in flight to end (or give up without the lease). */
    drained: () => Promise.all(inFlight),
  };
};
