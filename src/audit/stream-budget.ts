/**
 * Bytes of event text the audit streams of one process hold: read from the store and not yet
 * taken by their sockets. A stream counts a batch as it reads it (`hold`), gives each event back
 * as its socket takes it (`release`), and before its next read waits for `room` for a whole
 * batch, so together the streams stay near `maxBytes` whatever their clients do.
 */
export const createStreamBudget = (maxBytes: number) => {
  let held = 0;
  const waiting: Array<{ bytes: number; go: () => void }> = [];
  let again: NodeJS.Timeout | undefined;
  const admit = () => {
    // In arrival order. Those let through together count as if they had read already: one
    // release must not let every waiting stream read at once.
    let promised = 0;
    while (waiting.length > 0 && (held + promised + waiting[0]!.bytes <= maxBytes || held + promised === 0)) {
      const next = waiting.shift()!;
      promised += next.bytes;
      next.go();
    }
    // One let through may find nothing to read (or its client gone) and never hold or release:
    // look again shortly, when those that did read hold their batch.
    if (waiting.length > 0 && promised > 0)
      again ??= setTimeout(() => {
        again = undefined;
        admit();
      }, 10);
  };
  return {
    held: () => held,
    hold: (bytes: number) => {
      held += bytes;
    },
    release: (bytes: number) => {
      held -= bytes;
      admit();
    },
    /** Resolves once `bytes` more fit (at once when they do and nobody waits before). */
    room: (bytes: number) =>
      new Promise<void>((go) => {
        if (waiting.length === 0 && (held + bytes <= maxBytes || held === 0)) return go();
        waiting.push({ bytes, go });
      }),
  };
};

export type StreamBudget = ReturnType<typeof createStreamBudget>;
