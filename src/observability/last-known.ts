/** A value as last learned, and how long ago that check started. */
export interface Known<T> {
  readonly value: T;
  readonly ageMs: number;
}

export interface LastKnownOptions<T> {
  /** A value younger than this is answered as it is; an older one starts a refresh. */
  readonly freshMs: number;
  /** How long a read waits for the refresh it started before answering with the last value. */
  readonly waitMs: number;
  /** A refresh with no answer by then counts as failed (it is not awaited any more). */
  readonly timeoutMs: number;
  /** The value that stands for a refresh that failed or timed out. */
  readonly failed: (reason: string) => T;
}

const sleep = (ms: number) => {
  let timer: NodeJS.Timeout | undefined;
  const done = new Promise<void>((r) => {
    timer = setTimeout(r, ms);
  });
  return { done, cancel: () => clearTimeout(timer) };
};

/**
 * A value slow to learn for a probe that must answer within a second whatever a dependency does
 * (whether Temporal answers can take seconds to learn while it is away). A read starts a refresh
 * when the value is stale, one at a time, each bounded by its own time-out; it waits for it at
 * most `waitMs`, then answers with the last known value and its age (none before the first).
 */
export const lastKnown = <T>(learn: () => Promise<T>, o: LastKnownOptions<T>) => {
  let last: { value: T; startedAt: number } | undefined;
  let refreshing: Promise<void> | undefined;
  // A late answer of an abandoned refresh must not replace a newer one.
  const settle = (value: T, startedAt: number) => {
    if (!last || last.startedAt <= startedAt) last = { value, startedAt };
  };
  const refresh = () => {
    refreshing ??= (async () => {
      const startedAt = Date.now();
      const limit = sleep(o.timeoutMs);
      try {
        const outcome = await Promise.race([
          learn().then(
            (value) => ({ value }),
            (e: unknown) => ({ value: o.failed(String(e)) }),
          ),
          limit.done.then(() => ({ value: o.failed(`no answer within ${o.timeoutMs} ms`) })),
        ]);
        settle(outcome.value, startedAt);
      } finally {
        limit.cancel();
        refreshing = undefined;
      }
    })();
    return refreshing;
  };
  return async (): Promise<Known<T> | undefined> => {
    if (!last || Date.now() - last.startedAt >= o.freshMs) {
      const wait = sleep(o.waitMs);
      await Promise.race([refresh(), wait.done]);
      wait.cancel();
    }
    return last && { value: last.value, ageMs: Date.now() - last.startedAt };
  };
};
