import type { StoredEvent } from '../../event-store/port';
import type { DispatchClient } from '../../temporal/dispatch-client';
import { orderOf } from '../../dispatch/ordering';
import { acceptedRecordOf, SIGNAL_ACCEPTED } from '../model/signal-record';

export type Order = Parameters<DispatchClient['enqueue']>[0];

/**
 * The instance orders a signal's own dispatch joins: one per `per_instance` trigger it matched
 * with an instance key. A redelivery joins none: it is sent at once.
 */
export const ordersOf = (e: StoredEvent): Order[] => (e.type !== SIGNAL_ACCEPTED ? [] : acceptedRecordOf(e).plan.triggers.flatMap((t) => {
  const o = orderOf(t);
  return o ? [{ workflowId: o.orderWorkflowId, triggerId: t.triggerId, instanceKey: o.instanceKey }] : [];
}));

/** A signal's place in one order: taken in store order, filled once its dispatch started (or skipped when none did). */
interface Place {
  line: Line;
  workflowId?: string;
  filled: boolean;
  resolve(): void;
  reject(e: unknown): void;
}

interface Line { order: Order; places: Place[]; sending: boolean }

export interface JoinOptions {
  /** Puts started dispatches in an order, in this order (DispatchClient.enqueue). */
  send: (order: Order, workflowIds: string[]) => Promise<void>;
  /** False once the relay lost its lease or stops: places not yet sent are given up (`gone` rejects them). */
  holding: () => boolean;
  gone: () => Error;
  /** Waits before sending again after a failure, attempt 1, 2, …; reports the failure. */
  retryPause: (attempt: number, error: unknown) => Promise<void>;
}

/**
 * Puts dispatches in their instance orders in the order their signals were stored, although
 * they start concurrently: a place is taken when the relay reads the signal, and each order
 * sends its leading filled places together, one send in flight per order. A burst of one
 * instance's signals joins with a few sends, not one each, and waiting never holds a start slot.
 */
export class InstanceJoins {
  private lines = new Map<string, Line>();
  private waiting = 0;
  private roomWaiters: Array<() => void> = [];

  constructor(private readonly o: JoinOptions) {}

  /** Places not yet sent: the relay reads no further while there are too many. */
  get pending(): number { return this.waiting; }

  /** Resolves once places were sent or given up (the relay then looks at `pending` again). */
  whenSent(): Promise<void> { return new Promise((resolve) => this.roomWaiters.push(resolve)); }

  /** Takes the signal's places in its orders, now, in store order. */
  reserve(orders: readonly Order[]): { places: Place[]; sent: Promise<void> } {
    const places: Place[] = [];
    const sent = Promise.all(orders.map((order) => new Promise<void>((resolve, reject) => {
      const line = this.lines.get(order.workflowId) ?? { order, places: [], sending: false };
      this.lines.set(order.workflowId, line);
      const place: Place = { line, filled: false, resolve, reject };
      line.places.push(place);
      places.push(place);
      this.waiting++;
    }))).then(() => undefined);
    return { places, sent };
  }

  /** The dispatch started (its workflow id) or did not (undefined): its places may go. */
  fill(places: readonly Place[], workflowId: string | undefined) {
    for (const p of places) { p.workflowId = workflowId; p.filled = true; }
    for (const line of new Set(places.map((p) => p.line))) void this.sendFrom(line);
  }

  private async sendFrom(line: Line) {
    if (line.sending) return;
    line.sending = true;
    try {
      for (;;) {
        const ready: Place[] = [];
        for (const p of line.places) { if (!p.filled) break; ready.push(p); }
        if (ready.length === 0) break;
        const ids = ready.flatMap((p) => (p.workflowId ? [p.workflowId] : []));
        for (let attempt = 1; ids.length > 0; attempt++) {
          if (!this.o.holding()) return this.giveUp(line);
          try {
            await this.o.send(line.order, ids);
            break;
          } catch (e) {
            await this.o.retryPause(attempt, e);
          }
        }
        line.places.splice(0, ready.length);
        this.leave(ready.length);
        for (const p of ready) p.resolve();
      }
    } finally {
      line.sending = false;
      if (line.places.length === 0) this.lines.delete(line.order.workflowId);
    }
  }

  private giveUp(line: Line) {
    const error = this.o.gone();
    this.leave(line.places.length);
    for (const p of line.places.splice(0)) p.reject(error);
  }

  private leave(count: number) {
    this.waiting -= count;
    for (const w of this.roomWaiters.splice(0)) w();
  }
}
