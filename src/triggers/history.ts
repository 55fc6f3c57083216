import { EventStore } from '../event-store/port';
import { streamOf } from './events';

/** A trigger's events, oldest first, as the history endpoint shows them. Also after deletion. */
export const historyOf = async (store: EventStore, triggerId: string) =>
  (await store.read(streamOf(triggerId))).map((e) => ({
    type: e.type,
    version: Number(e.revision) + 1,
    data: e.data,
    metadata: e.metadata,
  }));
