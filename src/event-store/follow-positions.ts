import { EventEmitter } from 'node:events';
import { BatchHandler, Checkpoint, StoredEvent, SubscribeOptions, Subscription } from './port';

/**
 * Reads up to `limit` events of the subscription's category after `position`; `cut` when a
 * byte bound (SubscribeOptions.maxBatchBytes) ended the batch early: more follow at once.
 */
export type ReadAfter = (position: bigint, limit: number) => ReadResult | Promise<ReadResult>;
interface ReadResult {
  events: StoredEvent[];
  cut: boolean;
}

const BATCH_SIZE = 1000;

/**
 * Follows one category of a store read by position (SQLite, PostgreSQL): reads what is there,
 * hands it over batch by batch, then sleeps until an append to its category is known
 * (`appended` fires with the categories appended, or none: any may have been) or `pollMs`
 * passes, which is how appends the store was not told of are seen.
 */
export const followPositions = (
  readAfter: ReadAfter,
  appended: EventEmitter,
  pollMs: number,
  from: Checkpoint,
  handler: BatchHandler,
  onError: (e: unknown) => void,
  { resumeAfter, category }: Pick<SubscribeOptions, 'resumeAfter' | 'category'> = {},
): Subscription => {
  let checkpoint = from === 'start' ? 0n : from;
  let closed = false;
  // Set by every local append; checked before sleeping so an append made while the handler
  // ran is never missed (it would otherwise wait a whole poll interval).
  let appendedSinceRead = false;
  let wake: (() => void) | undefined;
  const onAppend = (categories?: ReadonlySet<string>) => {
    if (categories && category && !categories.has(category)) return;
    appendedSinceRead = true;
    wake?.();
  };
  appended.on('append', onAppend);
  const sleep = () =>
    new Promise<void>((resolve) => {
      if (appendedSinceRead || closed) return resolve();
      const timer = setTimeout(resolve, pollMs);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const loop = async () => {
    while (!closed) {
      // One turn of the event loop lets appends made by concurrent requests join this batch.
      await new Promise((r) => setImmediate(r));
      appendedSinceRead = false;
      try {
        const ahead = resumeAfter?.();
        if (ahead !== undefined && ahead !== 'start' && ahead > checkpoint) checkpoint = ahead;
        const { events: batch, cut } = await readAfter(checkpoint, BATCH_SIZE);
        if (batch.length > 0) {
          await handler(batch);
          checkpoint = batch[batch.length - 1]!.position;
          if (batch.length === BATCH_SIZE || cut) continue;
        }
      } catch (e) {
        onError(e);
        await new Promise((r) => setTimeout(r, pollMs));
        continue;
      }
      if (!closed) await sleep();
    }
  };
  const running = loop();
  return {
    close: async () => {
      closed = true;
      appended.off('append', onAppend);
      wake?.();
      await running;
    },
  };
};
