import { ANY, KurrentDBClient, NO_STREAM, WrongExpectedVersionError, jsonEvent } from '@kurrent/kurrentdb-client';
import { Category, EventStore, ExpectedRevision, NewEvent, WrongExpectedRevision } from './port';
import { categoryFilter } from './kurrentdb-events';
import { countAfter, eventsAfter, headPosition, readStream, subscribeToCategory } from './kurrentdb-reads';

const streamState = (expected: ExpectedRevision) => (expected === 'no_stream' ? NO_STREAM : expected === 'any' ? ANY : expected);

const append = async (client: KurrentDBClient, streamId: string, events: readonly NewEvent[], expected: ExpectedRevision) => {
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
};

/** Oldest first; each whole stream recorded before `before` is deleted (soft: the id may start again). */
const removeRecordedBefore = async (client: KurrentDBClient, category: Category, before: Date, through: bigint, max: number) => {
  const old = new Set<string>();
  for await (const resolved of client.readAll({ maxCount: max, filter: categoryFilter(category) })) {
    const position = resolved.event?.position?.commit ?? resolved.commitPosition ?? 0n;
    if (!resolved.event || resolved.event.created >= before || position > through) break;
    old.add(resolved.event.streamId);
  }
  for (const stream of old) await client.deleteStream(stream);
  return old.size;
};

/**
 * KurrentDB / EventStoreDB adapter. Positions are commit positions of `$all`; the
 * subscription is a catch-up subscription to `$all` filtered on the trigger stream prefix.
 */
export const openKurrentStore = (connectionString: string): EventStore => {
  const client = KurrentDBClient.connectionString(connectionString);
  return {
    append: (streamId, events, expected) => append(client, streamId, events, expected),
    read: (streamId, range) => readStream(client, streamId, range),
    headPosition: (category = 'action_trigger') => headPosition(client, category),
    subscribe: (from, handler, onError, options) => subscribeToCategory(client, from, handler, onError, options),
    readCategory: (category, after, limit) => eventsAfter(client, category, after, limit),
    countAfter: (category, from, cap) => countAfter(client, category, from, cap),
    removeRecordedBefore: (category, before, through, max) => removeRecordedBefore(client, category, before, through, max),
    truncateBefore: async (streamId, revision) => {
      await client.setStreamMetadata(streamId, { truncateBefore: Number(revision) });
    },
    close: async () => {
      await client.dispose();
    },
  };
};
