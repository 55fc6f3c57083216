import { uuidv7 } from '../ids/uuidv7.ts';
import type { DeliveriesCancelled, DispatchView, RedeliveryQueued } from './types.ts';
import type { Accepted, RedeliveredFailed, RedeliveryAsk, Signal } from './requests.ts';
import type { Call } from './http.ts';

const path = (id: string) => `/api/signals/${encodeURIComponent(id)}`;

/** The client's signal calls. */
export const signalsApi = (call: Call) => ({
  /** Emits one signal; safe to retry because the id is fixed before the first attempt. */
  emit: async (s: Signal): Promise<Accepted> =>
    (await call<Accepted>('POST', '/api/signals', { ...s, id: s.id ?? uuidv7() }, {}, true)).body,
  emitMany: async (signals: Signal[]): Promise<Accepted[]> =>
    (
      await call<Accepted[]>(
        'POST',
        '/api/signals',
        signals.map((s) => ({ ...s, id: s.id ?? uuidv7() })),
        {},
        true,
      )
    ).body,
  status: async (id: string) => (await call<DispatchView>('GET', path(id))).body,
  /** Not retried: a lost answer and a second ask would be a second redelivery (or a 409 while the first runs). */
  redeliver: async (id: string, ask: RedeliveryAsk) => (await call<RedeliveryQueued>('POST', `${path(id)}/redeliver`, ask)).body,
  redelivery: async (id: string, n: number) => (await call<DispatchView>('GET', `${path(id)}/redeliveries/${n}`)).body,
  /**
   * Cancels the signal's pending deliveries (all, or `deliveryIds`). Not retried: after a lost
   * answer a second ask finds them cancelled already (a 409).
   */
  cancel: async (id: string, deliveryIds?: string[]) =>
    (await call<DeliveriesCancelled>('POST', `${path(id)}/cancel`, deliveryIds ? { delivery_ids: deliveryIds } : {})).body,
  redeliverFailed: async (triggerId: string, since: Date) =>
    (
      await call<RedeliveredFailed>('POST', `/api/action-triggers/${encodeURIComponent(triggerId)}/redeliver-failed`, {
        since: since.toISOString(),
      })
    ).body,
});
