import type { StoredEvent } from '../event-store/port';
import { orderOf } from '../dispatch/ordering';
import { workflowIdOf } from '../dispatch/types';
import type { QueuedDispatch } from './turns';
import type { TurnStore } from './turn-store';
import { acceptedRecordOf, SIGNAL_ACCEPTED } from '../model/signals/signal-record';

/** One `per_instance` trigger's order for one instance: its stream (turns.ts) and the trigger. */
export interface Order {
  orderId: string;
  triggerId: string;
}

/**
 * The orders a signal's own dispatch is queued in (one per `per_instance` trigger it matched with
 * an instance key) and its place there. A redelivery is in none: it is sent at once.
 */
export const ordersOf = (e: StoredEvent): { orders: Order[]; dispatch: QueuedDispatch } | undefined => {
  if (e.type !== SIGNAL_ACCEPTED) return undefined;
  const { plan, signal } = acceptedRecordOf(e);
  const orders = plan.triggers.flatMap((t) => {
    const o = orderOf(t);
    return o ? [{ orderId: o.orderWorkflowId, triggerId: t.triggerId }] : [];
  });
  return orders.length === 0 ? undefined : { orders, dispatch: { workflowId: workflowIdOf(signal.id), position: e.position.toString() } };
};

interface Waiting {
  dispatch: QueuedDispatch;
  /** Whether its turn is already its own: may be told before its write (see `write`). */
  given(isHead: boolean): void;
  written(): void;
  reject(e: unknown): void;
}
interface Line {
  waiting: Waiting[];
  busy: boolean;
}

/** A promise and the functions that settle it. */
const settleable = <T>() => {
  let resolve!: (value: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};

export interface QueueOptions {
  turns: Pick<TurnStore, 'queue' | 'isIdle'>;
  /** False once the relay lost its lease or stops: dispatches not yet queued are given up (`gone` rejects them). */
  holding: () => boolean;
  gone: () => Error;
  /** Waits before writing again after a failure, attempt 1, 2, …; reports the failure. */
  retryPause: (attempt: number, error: unknown) => Promise<void>;
}

/**
 * Queues each dispatch in its instance orders in the order the relay read the signals: one write
 * per order in flight, the dispatches that came meanwhile together in the next. A write that
 * fails is tried again as it was, so a retry never changes the order. The first of an idle order
 * has its turn and starts at once, without waiting for its write's fsync; any other starts after
 * its write, and the dispatch before it tells it its turn (it finds it in the order only once it
 * is written).
 */
export class InstanceQueues {
  private lines = new Map<string, Line>();

  constructor(private readonly o: QueueOptions) {}

  /**
   * Queues the dispatch in each order, now, in store order: `given`, the triggers whose turn is
   * already its own (it may start then); `written`, once every order holds it (the relay's
   * checkpoint may pass it then).
   */
  queue(orders: readonly Order[], dispatch: QueuedDispatch): { given: Promise<string[]>; written: Promise<void> } {
    const each = orders.map((order) => {
      const given = settleable<boolean>();
      const written = settleable<void>();
      const line = this.lines.get(order.orderId) ?? { waiting: [], busy: false };
      this.lines.set(order.orderId, line);
      line.waiting.push({
        dispatch,
        given: given.resolve,
        written: written.resolve,
        reject: (e) => {
          given.reject(e);
          written.reject(e);
        },
      });
      void this.write(order.orderId, line);
      return { given: given.promise.then((isHead) => (isHead ? [order.triggerId] : [])), written: written.promise };
    });
    return {
      given: Promise.all(each.map((e) => e.given)).then((g) => g.flat()),
      written: Promise.all(each.map((e) => e.written)).then(() => undefined),
    };
  }

  private async write(orderId: string, line: Line) {
    if (line.busy) return;
    line.busy = true;
    try {
      // Only the first write of a line can find the order idle: later ones follow this relay's own.
      let first = true;
      while (line.waiting.length > 0) {
        const batch = line.waiting.splice(0);
        if (first && (await this.o.turns.isIdle(orderId).catch(() => false))) batch[0]!.given(true);
        first = false;
        for (let attempt = 1; ; attempt++) {
          if (!this.o.holding()) {
            const error = this.o.gone();
            for (const w of [...batch, ...line.waiting.splice(0)]) w.reject(error);
            return;
          }
          try {
            await this.o.turns.queue(
              orderId,
              batch.map((w) => w.dispatch),
            );
            // One whose turn came meanwhile is told by the dispatch before it (which waits for it to start).
            for (const w of batch) {
              w.given(false);
              w.written();
            }
            break;
          } catch (e) {
            await this.o.retryPause(attempt, e);
          }
        }
      }
    } finally {
      line.busy = false;
      if (line.waiting.length === 0) this.lines.delete(orderId);
    }
  }
}
