import { Checkpoint } from '../event-store/port';
import { reached } from './projection-state';

/** A write waiting for the read model to hold its position. */
interface Waiter {
  position: bigint;
  resolve: (ok: boolean) => void;
  timer?: NodeJS.Timeout;
}

/** The writes waiting for the read model to hold their position, answered as `checkpoint()` passes it. */
export const positionWaiters = (checkpoint: () => Checkpoint) => {
  const waiters = new Set<Waiter>();
  /** Answers every write the checkpoint has now reached. */
  const settle = () => {
    for (const w of waiters)
      if (reached(checkpoint(), w.position)) {
        waiters.delete(w);
        clearTimeout(w.timer);
        w.resolve(true);
      }
  };
  /**
   * Resolves true once the read model holds every event up to `position`, or false after
   * `timeoutMs` (a write never hangs on its read model).
   */
  const waitFor = (position: bigint, timeoutMs = Infinity) =>
    new Promise<boolean>((resolve) => {
      if (reached(checkpoint(), position)) return resolve(true);
      const w: Waiter = { position, resolve };
      waiters.add(w);
      // Cleared once settled: a timer left to run out kept every create's waiter alive for the
      // whole bound, old-generation garbage that cost more CPU than the wait itself.
      if (timeoutMs !== Infinity)
        w.timer = setTimeout(() => {
          if (waiters.delete(w)) resolve(false);
        }, timeoutMs).unref();
    });
  return { settle, waitFor };
};
