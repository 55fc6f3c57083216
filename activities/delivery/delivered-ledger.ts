import type { EventStore } from '../../src/event-store/port';
import type { DeliveryReceipt } from '../../src/dispatch/types';
import type { Logger } from '../../src/kernel/logger';

/**
 * Which actions of a dispatch were delivered, kept in our own store (stream `delivered-<workflow
 * id>`, removed with the signal after the retention window; a redelivery has its own). A first attempt run as a local activity
 * becomes durable in Temporal only when its workflow task completes; if that task is lost, the
 * attempt runs again, and the ledger lets it answer with the receipt instead of sending again.
 */
export interface DeliveredLedger {
  find(workflowId: string, deliveryId: string): Promise<DeliveryReceipt | undefined>;
  /** Best effort: a delivery is never failed because its record could not be written. */
  record(workflowId: string, deliveryId: string, receipt: DeliveryReceipt): Promise<void>;
}

const streamOf = (workflowId: string) => `delivered-${workflowId}`;
const DELIVERED = 'ActionDelivered';

export const createDeliveredLedger = (store: EventStore, log: Logger): DeliveredLedger => ({
  find: async (workflowId, deliveryId) => {
    const events = await store.read(streamOf(workflowId));
    const found = events.find((e) => e.type === DELIVERED && e.data.deliveryId === deliveryId);
    return found?.data.receipt as DeliveryReceipt | undefined;
  },
  record: async (workflowId, deliveryId, receipt) => {
    try {
      await store.append(streamOf(workflowId), [{ type: DELIVERED, data: { deliveryId, receipt: { ...receipt } }, metadata: {} }], 'any');
    } catch (e) {
      log.warn('could not record a delivery in the ledger; a lost workflow task would send it again', { delivery_id: deliveryId, error: String(e) });
    }
  },
});
