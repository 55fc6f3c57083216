import { EventStore } from '../event-store/port';
import { Metrics, secondsSince } from './metrics';

/** The event store with each append timed (failed ones too: a conflict costs a round trip as well). */
export const withAppendTiming = (store: EventStore, metrics: Metrics): EventStore => {
  if (!metrics.enabled) return store;
  return {
    append: async (streamId, events, expected) => {
      const start = process.hrtime.bigint();
      try {
        return await store.append(streamId, events, expected);
      } finally {
        metrics.appendDuration(secondsSince(start));
      }
    },
    read: (streamId) => store.read(streamId),
    headPosition: (category) => store.headPosition(category),
    subscribe: (from, handler, onError, options) => store.subscribe(from, handler, onError, options),
    countAfter: (category, from, cap) => store.countAfter(category, from, cap),
    removeRecordedBefore: (category, before, through, max) => store.removeRecordedBefore(category, before, through, max),
    truncateBefore: (streamId, revision) => store.truncateBefore(streamId, revision),
    close: () => store.close(),
  };
};
