import { EventStore, StoredEvent } from '../event-store/port';
import { streamOf } from './events';

/** One stored trigger event as the API shows it (history and the audit feed): as stored, nothing added. */
export const historyEntry = (e: StoredEvent) => ({
  type: e.type,
  version: Number(e.revision) + 1,
  data: e.data,
  metadata: e.metadata,
});

/** A trigger's events, oldest first, as the history endpoint shows them. Also after deletion. */
export const historyOf = async (store: EventStore, triggerId: string) =>
  (await store.read(streamOf(triggerId))).map(historyEntry);
