import type { StoredEvent } from '../../event-store/port';
import type { DispatchClient } from '../../temporal/dispatch-client';
import { acceptedRecordOf, SIGNAL_ACCEPTED } from '../model/signal-record';

export type Order = Parameters<DispatchClient['enqueue']>[0];

/**
 * The instance orders a signal's own dispatch joins: one per `per_instance` trigger it matched
 * with an instance key. A redelivery joins none: it is sent at once.
 */
export const ordersOf = (e: StoredEvent): Order[] => (e.type !== SIGNAL_ACCEPTED ? [] : acceptedRecordOf(e).plan.triggers.flatMap((t) => (
  t.ordering && 'orderWorkflowId' in t.ordering ? [{ workflowId: t.ordering.orderWorkflowId, triggerId: t.triggerId, instanceKey: t.ordering.instanceKey }] : [])));

/**
 * Which dispatch of each order the relay last set going, so the next one joins the order only
 * after it: dispatches start concurrently, but join their orders in the order they were stored.
 */
export class OrderChains {
  private last = new Map<string, Promise<unknown>>();

  /** Settles when every earlier dispatch of these orders has joined them (rejects if one was given up). */
  earlier(orders: readonly Order[]): Promise<unknown> {
    return Promise.all(orders.map((o) => this.last.get(o.workflowId)));
  }

  /** `run` is now the last of these orders, until it settles. */
  track(orders: readonly Order[], run: Promise<unknown>) {
    for (const o of orders) this.last.set(o.workflowId, run);
    const forget = () => { for (const o of orders) if (this.last.get(o.workflowId) === run) this.last.delete(o.workflowId); };
    run.then(forget, forget);
  }
}
