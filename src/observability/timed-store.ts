import { EventStore } from '../event-store/port';
import { Metrics, secondsSince } from './metrics';

/** The event store with each append timed (failed ones too: a conflict costs a round trip as well). */
export const withAppendTiming = (store: EventStore, metrics: Metrics): EventStore => {
  if (!metrics.enabled) return store;
  return {
    // Every other method as the store has it: the adapters are plain objects of closures.
    ...store,
    append: async (streamId, events, expected) => {
      const start = process.hrtime.bigint();
      try {
        return await store.append(streamId, events, expected);
      } finally {
        metrics.appendDuration(secondsSince(start));
      }
    },
  };
};
