import { DispatchPlan, workflowIdOf } from '../../dispatch/types';
import type { EventStore } from '../../event-store/port';
import { relayCheckpoint } from './relay-lease';
import type { StoredSignal } from './signal-record';

/** The signal's dispatches the relay started, its own and its redeliveries, with their plans. */
export const startedDispatches = (s: StoredSignal): Array<{ workflowId: string; plan: DispatchPlan }> => [
  ...(s.refused ? [] : [{ workflowId: workflowIdOf(s.record.signal.id), plan: s.record.plan }]),
  ...s.redeliveries.filter((r) => !r.refused).map((r) => ({ workflowId: r.workflow_id, plan: r.plan })),
];

/** Whether a dispatch of the signal is still queued: the relay has not passed its stream's last event. */
export const dispatchStillQueued = async (store: EventStore, s: StoredSignal): Promise<boolean> => {
  const checkpoint = await relayCheckpoint(store);
  const last = s.redeliveries[s.redeliveries.length - 1]?.position ?? s.position;
  return checkpoint === 'start' || last > checkpoint;
};
