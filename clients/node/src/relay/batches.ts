import type { ClaimedRow } from './claim.ts';

/**
 * Takes the next request's rows off the front of `queue`: up to `maxCount` rows and `maxBytes`
 * of JSON (always at least one row), or one row alone when it is in `alone` (rows being sent one
 * by one after a refusal that named none of them).
 */
export const takeBatch = (queue: ClaimedRow[], maxCount: number, maxBytes: number, alone: ReadonlySet<string>): ClaimedRow[] => {
  const first = queue.shift();
  if (!first) return [];
  const batch = [first];
  if (alone.has(first.seq)) return batch;
  let bytes = first.bytes + 2;
  while (queue.length > 0 && batch.length < maxCount && !alone.has(queue[0]!.seq) && bytes + queue[0]!.bytes + 1 <= maxBytes) {
    bytes += queue[0]!.bytes + 1;
    batch.push(queue.shift()!);
  }
  return batch;
};
