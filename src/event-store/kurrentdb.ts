import {
  ANY,
  BACKWARDS,
  END,
  FORWARDS,
  KurrentDBClient,
  NO_STREAM,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  jsonEvent,
  streamNameFilter,
} from '@kurrent/kurrentdb-client';
import type { AllStreamSubscription, ResolvedEvent } from '@kurrent/kurrentdb-client';
import { BatchHandler, Category, Checkpoint, EventStore, ExpectedRevision, StoredEvent, Subscription, WrongExpectedRevision } from './port';

const categoryFilter = (category: Category) => streamNameFilter({ prefixes: [`${category}-`] });
const fromPositionOf = (from: Checkpoint) => (from === 'start' ? START : { commit: from, prepare: from });

/**
 * A stored event as the port shows it. One this service did not write as JSON keeps its place
 * (revision, position) with `data.unreadable` saying why: skipping it would shift every later
 * revision, so a trigger's versions (and the state folded from them) would be wrong; its
 * readers fail on it instead (UnreadableEvent for triggers), as they do on SQLite.
 */
export const toStored = (resolved: ResolvedEvent): StoredEvent | undefined => {
  const e = resolved.event;
  if (!e) return undefined;
  const json = e.isJson && typeof e.data === 'object' && e.data !== null && !Array.isArray(e.data);
  return {
    streamId: e.streamId,
    revision: e.revision,
    position: e.position?.commit ?? resolved.commitPosition ?? 0n,
    type: e.type,
    data: json ? (e.data as Record<string, unknown>) : { unreadable: e.isJson ? 'data is not a JSON object' : 'data is not JSON' },
    metadata: (e.isJson && typeof e.metadata === 'object' && e.metadata !== null ? e.metadata : {}) as Record<string, unknown>,
  };
};

const streamState = (expected: ExpectedRevision) => (expected === 'no_stream' ? NO_STREAM : expected === 'any' ? ANY : expected);

/**
 * KurrentDB / EventStoreDB adapter. Positions are commit positions of `$all`; the
 * subscription is a catch-up subscription to `$all` filtered on the trigger stream prefix.
 */
export const openKurrentStore = (connectionString: string): EventStore => {
  const client = KurrentDBClient.connectionString(connectionString);

  const subscribe = (
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

  return {
    append: async (streamId, events, expected) => {
      try {
        const result = await client.appendToStream(
          streamId,
          events.map((e) => jsonEvent({ type: e.type, data: e.data, metadata: e.metadata })),
          { streamState: streamState(expected) },
        );
        return { nextRevision: result.nextExpectedRevision, position: result.position?.commit ?? 0n };
      } catch (e) {
        if (e instanceof WrongExpectedVersionError) {
          const actual = typeof e.actualState === 'bigint' ? e.actualState : 'no_stream';
          throw new WrongExpectedRevision(streamId, expected, actual);
        }
        throw e;
      }
    },
    read: async (streamId, range = {}) => {
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
    },
    headPosition: async (category = 'action_trigger') => {
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
    },
    subscribe,
    // readAll from a position includes the event at it: one more is asked for, and it is skipped.
    readCategory: async (category, after, limit) => {
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
    },
    countAfter: async (category, from, cap) => {
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
    },
    // Oldest first; each whole stream recorded before `before` is deleted (soft: the id may start again).
    removeRecordedBefore: async (category, before, through, max) => {
      const old = new Set<string>();
      for await (const resolved of client.readAll({ maxCount: max, filter: categoryFilter(category) })) {
        const position = resolved.event?.position?.commit ?? resolved.commitPosition ?? 0n;
        if (!resolved.event || resolved.event.created >= before || position > through) break;
        old.add(resolved.event.streamId);
      }
      for (const stream of old) await client.deleteStream(stream);
      return old.size;
    },
    truncateBefore: async (streamId, revision) => {
      await client.setStreamMetadata(streamId, { truncateBefore: Number(revision) });
    },
    close: async () => {
      await client.dispose();
    },
  };
};
