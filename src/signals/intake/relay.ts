import { randomUUID } from 'node:crypto';
import { DispatchPlan, DispatchTurns, SignalEnvelope, workflowIdOf } from '../../dispatch/types';
import { Checkpoint, EventStore, StoredEvent } from '../../event-store/port';
import { Logger } from '../../kernel/logger';
import { acquireLease, Lease, leaseEnds, renewLease } from '../../model/signals/relay-lease';
import { originOf, Redelivery, refusedEvent, SignalRecord } from '../../model/signals/signal-record';
import { context } from '@opentelemetry/api';
import { withLogFields } from '../../kernel/log-context';
import { contextOf } from '../../observability/tracing';
import type { RedeliveryStart } from '../../temporal/dispatch-client';
import { isTransient } from './transient';
import { requestOf, startsDispatch } from './relay-requests';
import { InstanceQueues, ordersOf } from '../../ordering/instance-orders';
import { createTurnStore } from '../../ordering/turn-store';
import type { GiveTurn } from '../../dispatch/ordering';

export interface RelayOptions {
  readonly store: EventStore;
  /**
   * Starts one signal's dispatch (or a redelivery); the same again must start nothing new (workflow id).
   * Called in the trace of the request that stored it; `requestId` is that request's.
   */
  readonly start: (
    signal: SignalEnvelope,
    plan: DispatchPlan,
    redelivery?: RedeliveryStart,
    requestId?: string,
    turns?: DispatchTurns,
  ) => Promise<unknown>;
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

/** A start that failed for good is tried this many times, then recorded on the signal as refused. */
const PERMANENT_TRIES = 5;
const MAX_BACKOFF_MS = 5000;
const CHECKPOINT_SAVE_MS = 200;

class LeaseLost extends Error {}

/** A signal's dispatch in its instance orders: its place, the triggers whose turn it already has, and when every order holds it. */
type Queued = NonNullable<ReturnType<typeof ordersOf>> & { given: Promise<string[]>; written: Promise<void> };

/**
 * Starts the dispatch of every stored signal that matched something, in the order stored, from
 * the checkpoint kept with the lease (relay-lease.ts): one relay at a time among all processes
 * on the store. Woken by each local append; others' appends are seen within `pollMs`. While
 * Temporal is unreachable it retries with backoff and the backlog stays in the store.
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
  const sleepers = new Set<() => void>();
  const wake = () => {
    for (const w of sleepers) w();
  };
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      sleepers.add(done);
    });

  /**
   * One dispatch, in the scope of the request that stored it: its trace is the workflow's parent,
   * its ids are on every log line. Retried while Temporal is away; a refusal for good is recorded on the signal.
   */
  const startOne = async (event: StoredEvent, queued?: Queued): Promise<string | undefined> => {
    const request = await requestOf(o.store, event);
    if (!request) return void o.log.warn('a redelivery of a signal past its retention was not started', { stream: event.streamId });
    const origin = originOf(event);
    const ids = { signal_id: request.record.signal.id, ...(origin.request_id ? { request_id: origin.request_id } : {}) };
    return withLogFields(ids, () =>
      context.with(contextOf(origin.traceparent), async () =>
        (await startIn(event, request, origin.request_id, queued)) ? workflowIdOf(request.record.signal.id) : undefined,
      ),
    );
  };

  const turns = createTurnStore(o.store);
  /** Dispatches are queued in their instance orders in store order, retried until the store takes them (they start after). */
  const newQueues = () =>
    new InstanceQueues({
      turns,
      holding: () => !stopped && lease !== undefined,
      gone: () => new LeaseLost(),
      retryPause: async (attempt, e) => {
        waiting = e instanceof Error ? e.message : String(e);
        o.log.warn('could not queue dispatches in their instance order; retrying', { error: waiting });
        await pause(Math.min(MAX_BACKOFF_MS, 100 * 2 ** (attempt - 1)));
      },
    });

  /** A dispatch Temporal refused for good never takes its turns: each order passes it over. */
  const skipInOrders = async (queued: Queued) => {
    for (const order of queued.orders) {
      for (let delay = 100; ; delay = Math.min(MAX_BACKOFF_MS, delay * 2)) {
        if (stopped || !lease) throw new LeaseLost();
        try {
          await turns.skip(order.orderId, queued.dispatch, order.triggerId, o.giveTurn);
          break;
        } catch (e) {
          o.log.warn('could not pass a refused dispatch over in its instance order; retrying', { error: String(e) });
          await pause(delay);
        }
      }
    }
  };

  /** True once started (or started before); false when Temporal refused it for good (recorded on the signal). */
  const startIn = async (
    event: StoredEvent,
    request: { record: SignalRecord; redelivery?: Redelivery },
    requestId: string | undefined,
    queued?: Queued,
  ): Promise<boolean> => {
    const { record, redelivery } = request;
    const turnsOf: DispatchTurns | undefined = queued && { position: queued.dispatch.position, given: await queued.given };
    for (let tries = 1, delay = 100; ; tries++, delay = Math.min(MAX_BACKOFF_MS, delay * 2)) {
      if (stopped || !lease) throw new LeaseLost();
      try {
        // Stopping waits for a start in flight; the dispatch client bounds each one (5 s).
        const workflowId = redelivery?.workflow_id ?? workflowIdOf(record.signal.id);
        await o.start(
          record.signal,
          redelivery?.plan ?? record.plan,
          redelivery && {
            workflowId,
            of: { workflowId: workflowIdOf(record.signal.id), mode: redelivery.mode },
          },
          requestId,
          turnsOf,
        );
        waiting = undefined;
        o.log.info('dispatch started', { workflow_id: workflowId });
        return true;
      } catch (e) {
        waiting = e instanceof Error ? e.message : String(e);
        if (!isTransient(e) && tries >= PERMANENT_TRIES) {
          o.log.error('dispatch refused by Temporal; recorded on the signal', { signal_id: record.signal.id, error: waiting });
          await o.store.append(event.streamId, [refusedEvent(waiting.slice(0, 300), redelivery?.number)], 'any');
          if (queued) await skipInOrders(queued);
          return false;
        }
        if (tries === 1) o.log.warn('could not start a dispatch; retrying', { signal_id: record.signal.id, error: waiting });
        await pause(delay);
      }
    }
  };

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

  // Starts share `concurrency` slots across batches, so one slow start never holds back the signals
  // stored after it; the checkpoint moves only past batches whose starts have all ended.
  let free = concurrency;
  const slotWaiters: Array<() => void> = [];
  const takeSlot = async () => {
    while (free === 0) await new Promise<void>((r) => slotWaiters.push(r));
    free--;
  };
  const freeSlot = () => {
    free++;
    slotWaiters.shift()?.();
  };
  let open: Array<{ position: Checkpoint; left: number }> = [];
  const inFlight = new Set<Promise<void>>();
  // Saved at most CHECKPOINT_SAVE_MS after it moves (a save just made is followed by one more), so
  // every process sees `queued` end and the backlog shrink that soon, not at the next renewal.
  let saveTimer: NodeJS.Timeout | undefined;
  const saveSoon = () => {
    if (saveTimer) return;
    saveTimer = setTimeout(
      () => {
        saveTimer = undefined;
        void renew();
      },
      Math.max(0, CHECKPOINT_SAVE_MS - (Date.now() - renewedAt)),
    );
  };
  const settle = () => {
    const before = checkpoint;
    while (open[0]?.left === 0) checkpoint = open.shift()!.position;
    if (checkpoint !== before) saveSoon();
  };

  /** Starts one, again after a fault of ours (a store read), until done or the lease is gone. */
  const startUntilDone = async (event: StoredEvent, queued?: Queued) => {
    for (let delay = 100; ; delay = Math.min(MAX_BACKOFF_MS, delay * 2)) {
      try {
        return await startOne(event, queued);
      } catch (e) {
        if (e instanceof LeaseLost || stopped || !lease) throw e;
        o.log.error('relay failed; retrying', { error: String(e) });
        await pause(delay);
      }
    }
  };

  let queues = newQueues();

  const relayBatch = async (events: readonly StoredEvent[]) => {
    const batch = { position: events[events.length - 1]!.position as Checkpoint, left: 0 };
    open.push(batch);
    for (const event of events.filter(startsDispatch)) {
      await takeSlot();
      if (stopped || !lease) {
        freeSlot();
        throw new LeaseLost();
      }
      batch.left++;
      // Queued now, in store order; it starts once it is known whether its turn is already its own.
      const inOrders = ordersOf(event);
      const queued = inOrders && { ...inOrders, ...queues.queue(inOrders.orders, inOrders.dispatch) };
      // A lost lease rejects both: the start and the batch below say so (handled now, not when they get there).
      queued?.given.catch(() => undefined);
      queued?.written.catch(() => undefined);
      // A start (or a write in its orders) that ends without the lease leaves its batch open: the next holder starts it again.
      const run = startUntilDone(event, queued);
      void run.then(freeSlot, freeSlot);
      const done: Promise<void> = run
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

  /** While holding: follow the signals, renewing the lease every third of its time. */
  const relayWhileHolding = async () => {
    checkpoint = lease!.checkpoint;
    open = [];
    queues = newQueues();
    const timer = setInterval(() => void renew(), leaseMs / 3);
    const subscription = o.store.subscribe(
      checkpoint,
      relayBatch,
      (e) => {
        if (!(e instanceof LeaseLost)) o.log.error('relay failed; retrying', { error: String(e) });
      },
      { category: 'signal', pollMs },
    );
    while (lease && !stopped) await pause(leaseMs);
    clearInterval(timer);
    await subscription.close();
    await Promise.all(inFlight);
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
