import { deliveredIn } from '../../delivery/delivered-ledger';
import type { EventStore } from '../../event-store/port';
import type { DispatchView } from '../../temporal/dispatch-client';

/**
 * A running dispatch's view with what its ledger already holds: a batch of first attempts
 * reports to the workflow when the whole batch is done, but records each delivery in the ledger
 * as it succeeds, so one slow target does not hide the others' deliveries. Shown only for actions
 * the workflow still has pending; the workflow's own record wins once it has one. A dispatch
 * shown `queued` (the relay started it but has not yet moved its checkpoint past it) with
 * deliveries in its ledger is running.
 */
export const withDeliveredSoFar = async (view: DispatchView, store: Pick<EventStore, 'read'>): Promise<DispatchView> => {
  if ((view.state !== 'running' && view.state !== 'queued') || !view.actions.some((a) => a.state === 'pending')) return view;
  const delivered = await deliveredIn(store, view.workflow_id);
  if (delivered.size === 0) return view;
  return {
    ...view,
    state: 'running',
    actions: view.actions.map((a) => {
      const receipt = a.state === 'pending' ? delivered.get(a.delivery_id) : undefined;
      if (!receipt) return a;
      return {
        ...a,
        state: 'delivered',
        attempts: receipt.attempt,
        warnings: receipt.warnings,
        ...(receipt.statusCode === undefined ? {} : { status_code: receipt.statusCode }),
      };
    }),
  };
};
