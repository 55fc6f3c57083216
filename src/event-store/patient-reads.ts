import { EventStore, StoreUnavailable } from './port';

/**
 * How long a read may take in all, waiting for a store server that is away (a restart takes
 * seconds). Well within the time Temporal grants an attempt beyond its own time-out (10 s): an
 * attempt still reading when Temporal retries it would send after its retry did.
 */
const WAIT_MS = 5000;
const RETRY_EVERY_MS = 250;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The store as the worker's activities read it: a read that finds the server away tries again
 * until it answers or `waitMs` passed, and one that hangs is given up at `waitMs` (as away).
 * Without it, a store restart would use up a delivery's attempts, one failed read each.
 */
export const patientReads = (store: EventStore, waitMs = WAIT_MS): EventStore => ({
  ...store,
  read: async (streamId, range) => {
    const deadline = Date.now() + waitMs;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new StoreUnavailable(`no answer to a read within ${waitMs} ms`)), waitMs);
    });
    const attempt = async (): Promise<Awaited<ReturnType<EventStore['read']>>> => {
      try {
        return await store.read(streamId, range);
      } catch (e) {
        if (!(e instanceof StoreUnavailable) || Date.now() + RETRY_EVERY_MS > deadline) throw e;
        await sleep(RETRY_EVERY_MS);
        return attempt();
      }
    };
    try {
      return await Promise.race([attempt(), late]);
    } finally {
      clearTimeout(timer);
    }
  },
});
