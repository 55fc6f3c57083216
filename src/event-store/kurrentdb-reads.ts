import { BACKWARDS, END, FORWARDS, KurrentDBClient, START, StreamNotFoundError } from '@kurrent/kurrentdb-client';
import type { AllStreamSubscription } from '@kurrent/kurrentdb-client';
import { BatchHandler, Category, Checkpoint, ReadRange, StoredEvent, Subscription } from './port';
import { categoryFilter, fromPositionOf, toStored } from './kurrentdb-events';

/** The KurrentDB adapter's reads: a stream, a category from a position of `$all`, and following it. */

export const readStream = async (client: KurrentDBClient, streamId: string, range: ReadRange = {}) => {
  const out: StoredEvent[] = [];
  const backwards = range.direction === 'backwards';
  try {
    for await (const resolved of client.readStream(streamId, {
      direction: backwards ? BACKWARDS : FORWARDS,
      fromRevision: range.fromRevision ?? (backwards ? END : START),
      ...(range.maxCount === undefined ? {} : { maxCount: range.maxCount }),
    })) {
      const stored = toStored(resolved);
      if (stored) out.push(stored);
    }
  } catch (e) {
    if (e instanceof StreamNotFoundError) return [];
    throw e;
  }
  return out;
};

export const headPosition = async (client: KurrentDBClient, category: Category): Promise<Checkpoint> => {
  for await (const resolved of client.readAll({
    direction: BACKWARDS,
    fromPosition: END,
    maxCount: 1,
    filter: categoryFilter(category),
  })) {
    const stored = toStored(resolved);
    if (stored) return stored.position;
  }
  return 'start';
};

// readAll from a position includes the event at it: one more is asked for, and it is skipped.
export const eventsAfter = async (client: KurrentDBClient, category: Category, after: Checkpoint, limit: number) => {
  const out: StoredEvent[] = [];
  for await (const resolved of client.readAll({
    fromPosition: fromPositionOf(after),
    maxCount: limit + 1,
    filter: categoryFilter(category),
  })) {
    const stored = toStored(resolved);
    if (stored && stored.position !== after) out.push(stored);
    if (out.length >= limit) break;
  }
  return out;
};

export const countAfter = async (client: KurrentDBClient, category: Category, from: Checkpoint, cap: number) => {
  let n = 0;
  for await (const resolved of client.readAll({
    fromPosition: fromPositionOf(from),
    maxCount: cap + 1,
    filter: categoryFilter(category),
  })) {
    const stored = toStored(resolved);
    if (stored && stored.position !== from && ++n >= cap) break;
  }
  return n;
};

/**
 * A catch-up subscription to `$all` filtered on the category's stream prefix; after an error it
 * subscribes again from the last event handled, half a second later.
 */
export const subscribeToCategory = (
  client: KurrentDBClient,
  from: Checkpoint,
  handler: BatchHandler,
  onError: (e: unknown) => void,
  options: { category?: Category } = {},
): Subscription => {
  let closed = false;
  let current: AllStreamSubscription | undefined;
  let checkpoint = from;
  const run = async () => {
    while (!closed) {
      try {
        current = client.subscribeToAll({
          fromPosition: fromPositionOf(checkpoint),
          filter: categoryFilter(options.category ?? 'action_trigger'),
        });
        // One event per batch: within any maxBatchBytes (a batch holds at least one).
        for await (const resolved of current) {
          const stored = toStored(resolved);
          if (!stored) continue;
          await handler([stored]);
          checkpoint = stored.position;
        }
      } catch (e) {
        if (!closed) onError(e);
      }
      if (!closed) await new Promise((r) => setTimeout(r, 500));
    }
  };
  const running = run();
  return {
    close: async () => {
      closed = true;
      await current?.unsubscribe();
      await running;
    },
  };
};
