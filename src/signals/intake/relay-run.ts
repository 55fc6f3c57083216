import type { Logger } from '../../kernel/logger';

/** The lease was lost (or the relay stopped) while a start or a write was under way: the next holder redoes it. */
export class LeaseLost extends Error {}

/** What the parts of the relay share while it holds the lease. */
export interface RelayRun {
  /** Whether the relay still holds the lease and is not stopping. */
  readonly holding: () => boolean;
  /** Waits `ms`, or less when the relay is stopping. */
  readonly pause: (ms: number) => Promise<void>;
  /** Why starts are waiting (Temporal away, the store refusing writes), or undefined once they go again. */
  readonly waiting: (reason: string | undefined) => void;
  readonly log: Logger;
}

/** Pauses that all end at once when `wake` is called (the relay stops, or loses its lease). */
export const wakeablePauses = () => {
  const sleepers = new Set<() => void>();
  return {
    pause: (ms: number) =>
      new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          sleepers.delete(done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        sleepers.add(done);
      }),
    wake: () => {
      for (const w of sleepers) w();
    },
  };
};

export const MAX_BACKOFF_MS = 5000;
