import { EventStore, StoreUnavailable } from './port';

/** How long a read waits for a store server that is away (a restart takes seconds). */
const WAIT_MS = 20_000;
const RETRY_EVERY_MS = 250;

/**
 * The store as the worker's activities read it: a read that finds the server away tries again
 * until it answers or `waitMs` passed. Without it, a store restart would use up a delivery's
 * attempts (each read failing one), and an action could end failed for an outage of seconds.
 * The activity's own time-out still bounds the attempt.
 */
export const patientReads = (store: EventStore, waitMs = WAIT_MS): EventStore => ({
  ...store,
  read: async (streamId, range) => {
    for (const deadline = Date.now() + waitMs; ;) {
      try {
        return await store.read(streamId, range);
      } catch (e) {
        if (!(e instanceof StoreUnavailable) || Date.now() + RETRY_EVERY_MS > deadline) throw e;
        await new Promise((r) => setTimeout(r, RETRY_EVERY_MS));
      }
    }
  },
});
