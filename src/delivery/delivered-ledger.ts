import * as t from 'io-ts';
import { EventStore, StoredEvent, UnreadableEvent } from '../event-store/port';
import type { DeliveryReceipt } from '../dispatch/types';
import type { Logger } from '../kernel/logger';
import { describeErrors } from '../kernel/field-errors';

/**
 * Which actions of a dispatch were delivered, kept in our own store (stream `delivered-<workflow
 * id>`, removed with the signal after the retention window; a redelivery has its own). A first attempt run as a local activity
 * becomes durable in Temporal only when its workflow task completes; if that task is lost, the
 * attempt runs again, and the ledger lets it answer with the receipt instead of sending again.
 */
export interface DeliveredLedger {
  find(workflowId: string, deliveryId: string): Promise<DeliveryReceipt | undefined>;
  /** Every delivery recorded for the dispatch, by delivery id. */
  all(workflowId: string): Promise<Map<string, DeliveryReceipt>>;
  /** Best effort: a delivery is never failed because its record could not be written. */
  record(workflowId: string, deliveryId: string, receipt: DeliveryReceipt): Promise<void>;
}

const streamOf = (workflowId: string) => `delivered-${workflowId}`;
const DELIVERED = 'ActionDelivered';

const Delivered = t.type({
  deliveryId: t.string,
  receipt: t.intersection([t.type({ attempt: t.number, warnings: t.array(t.string) }), t.partial({ statusCode: t.number })]),
});

/** Decoded when read back: a record of another shape fails the attempt rather than be guessed at. */
const readDelivered = (e: StoredEvent) => {
  if (e.type !== DELIVERED) throw new UnreadableEvent(e.streamId, e.revision, `${e.type} is not a delivery record`);
  const decoded = Delivered.decode(e.data);
  if (decoded._tag === 'Left') throw new UnreadableEvent(e.streamId, e.revision, describeErrors(decoded.left));
  return decoded.right;
};

/** Every delivery recorded for the dispatch, by delivery id. */
export const deliveredIn = async (store: Pick<EventStore, 'read'>, workflowId: string) =>
  new Map((await store.read(streamOf(workflowId))).map(readDelivered).map((r) => [r.deliveryId, r.receipt]));

export const createDeliveredLedger = (store: EventStore, log: Logger): DeliveredLedger => {
  const all = (workflowId: string) => deliveredIn(store, workflowId);
  return {
    all,
    find: async (workflowId, deliveryId) => (await all(workflowId)).get(deliveryId),
    record: async (workflowId, deliveryId, receipt) => {
      try {
        await store.append(streamOf(workflowId), [{ type: DELIVERED, data: { deliveryId, receipt: { ...receipt } }, metadata: {} }], 'any');
      } catch (e) {
        log.warn('could not record a delivery in the ledger; a lost workflow task or a retried batch would send it again', {
          delivery_id: deliveryId,
          error: String(e),
        });
      }
    },
  };
};
