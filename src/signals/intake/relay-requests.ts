import { EventStore, readable, StoredEvent } from '../../event-store/port';
import {
  acceptedRecordOf,
  Redelivery,
  redeliveryOf,
  REDELIVERY_REQUESTED,
  SIGNAL_ACCEPTED,
  SignalRecord,
} from '../../model/signals/signal-record';

/**
 * A matched signal's acceptance, or a redelivery asked for: each starts a workflow. So does an
 * acceptance this build cannot read: its start records it as refused, and the signals stored
 * after it go on (one odd event never halts the relay).
 */
export const startsDispatch = (e: StoredEvent) =>
  e.type === REDELIVERY_REQUESTED || (e.type === SIGNAL_ACCEPTED && (readable(() => acceptedRecordOf(e).plan.actions.length > 0) ?? true));

/** The signal (a redelivery reads it from its stream's first event) and the redelivery, if it is one. */
export const requestOf = async (
  store: EventStore,
  event: StoredEvent,
): Promise<{ record: SignalRecord; redelivery?: Redelivery } | undefined> => {
  if (event.type === SIGNAL_ACCEPTED) return { record: acceptedRecordOf(event) };
  // Past the retention window the acceptance may be gone before its last redelivery: nothing to send.
  const accepted = (await store.read(event.streamId)).find((e) => e.type === SIGNAL_ACCEPTED);
  return accepted && { record: acceptedRecordOf(accepted), redelivery: redeliveryOf(event) };
};
