import { randomUUID } from 'node:crypto';
import {
  EventStore,
  NewEvent,
  StoredEvent,
  SubscribeOptions,
  TRIGGER_STREAM_PREFIX,
  WrongExpectedRevision,
} from '../../src/event-store/port';

const event = (n: number): NewEvent => ({
  type: 'TriggerActivated',
  data: { n },
  metadata: { actor: 'test', request_id: `r${n}`, occurred_at: new Date(0).toISOString() },
});
const freshStream = () => `${TRIGGER_STREAM_PREFIX}${randomUUID()}`;

const freshSignal = () => `signal-${randomUUID()}`;

const collect = (store: EventStore, from: bigint | 'start', until: (seen: StoredEvent[]) => boolean, options?: SubscribeOptions) =>
  new Promise<StoredEvent[]>((resolve, reject) => {
    const seen: StoredEvent[] = [];
    const sub = store.subscribe(
      from,
      async (batch) => {
        seen.push(...batch);
        if (until(seen)) void sub.close().then(() => resolve(seen));
      },
      reject,
      options,
    );
  });

/** The behaviour every event store adapter must have. Isolation by fresh stream ids. */
export const describeEventStoreContract = (name: string, open: () => Promise<EventStore>, skip = false) => {
  (skip ? describe.skip : describe)(`event store contract: ${name}`, () => {
    let store: EventStore;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store?.close();
    });

    test('appends to a new stream and reads it back in order', async () => {
      const stream = freshStream();
      const result = await store.append(stream, [event(1), event(2)], 'no_stream');
      expect(result.nextRevision).toBe(1n);
      const read = await store.read(stream);
      expect(read.map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }]);
      expect(read.map((e) => e.revision)).toEqual([0n, 1n]);
      expect(read[0]!.metadata).toMatchObject({ actor: 'test', request_id: 'r1' });
      expect(read[1]!.position > read[0]!.position).toBe(true);
    });

    test('reading an unknown stream gives no events', async () => {
      expect(await store.read(freshStream())).toEqual([]);
    });

    test('reads a part of a stream: from a revision, at most n events, forwards or backwards', async () => {
      const stream = freshStream();
      await store.append(stream, [1, 2, 3, 4, 5].map(event), 'no_stream');
      const ns = (events: StoredEvent[]) => events.map((e) => e.data.n);
      expect(ns(await store.read(stream, { fromRevision: 2n }))).toEqual([3, 4, 5]);
      expect(ns(await store.read(stream, { fromRevision: 1n, maxCount: 2 }))).toEqual([2, 3]);
      expect((await store.read(stream, { fromRevision: 1n, maxCount: 2 })).map((e) => e.revision)).toEqual([1n, 2n]);
      expect(ns(await store.read(stream, { direction: 'backwards', maxCount: 1 }))).toEqual([5]);
      expect(ns(await store.read(stream, { direction: 'backwards', fromRevision: 2n, maxCount: 2 }))).toEqual([3, 2]);
      expect(ns(await store.read(stream, { direction: 'backwards' }))).toEqual([5, 4, 3, 2, 1]);
      expect(await store.read(stream, { fromRevision: 5n })).toEqual([]);
      expect(await store.read(freshStream(), { direction: 'backwards', maxCount: 1 })).toEqual([]);
    });

    test('rejects an append whose expected revision is stale', async () => {
      const stream = freshStream();
      await store.append(stream, [event(1)], 'no_stream');
      await expect(store.append(stream, [event(2)], 'no_stream')).rejects.toBeInstanceOf(WrongExpectedRevision);
      await expect(store.append(stream, [event(2)], 5n)).rejects.toBeInstanceOf(WrongExpectedRevision);
      await store.append(stream, [event(2)], 0n);
      expect((await store.read(stream)).length).toBe(2);
    });

    test('of concurrent appends with the same expected revision exactly one wins', async () => {
      const stream = freshStream();
      await store.append(stream, [event(0)], 'no_stream');
      const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => store.append(stream, [event(i + 1)], 0n)));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect(results.filter((r) => r.status === 'rejected' && r.reason instanceof WrongExpectedRevision)).toHaveLength(9);
      expect(await store.read(stream)).toHaveLength(2);
    });

    test('a subscription delivers past events in order, then live ones', async () => {
      const stream = freshStream();
      const before = await store.headPosition();
      await store.append(stream, [event(1), event(2)], 'no_stream');
      const live = collect(store, before, (seen) => seen.filter((e) => e.streamId === stream).length >= 3);
      await store.append(stream, [event(3)], 1n);
      const mine = (await live).filter((e) => e.streamId === stream);
      expect(mine.map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
      const positions = (await live).map((e) => e.position);
      expect([...positions].sort((a, b) => (a < b ? -1 : 1))).toEqual(positions);
    });

    test('a subscription waits for its handler before the next batch', async () => {
      const stream = freshStream();
      const before = await store.headPosition();
      for (let i = 0; i < 5; i++) await store.append(stream, [event(i)], i === 0 ? 'no_stream' : BigInt(i - 1));
      let running = 0;
      let overlapped = false;
      const seen = await new Promise<StoredEvent[]>((resolve, reject) => {
        const all: StoredEvent[] = [];
        const sub = store.subscribe(
          before,
          async (batch) => {
            running++;
            if (running > 1) overlapped = true;
            await new Promise((r) => setTimeout(r, 5));
            all.push(...batch);
            running--;
            if (all.filter((e) => e.streamId === stream).length >= 5) void sub.close().then(() => resolve(all));
          },
          reject,
        );
      });
      expect(overlapped).toBe(false);
      expect(seen.filter((e) => e.streamId === stream)).toHaveLength(5);
    });

    test("maxBatchBytes: each batch's data fits the bound (a larger event comes alone), every event once, in order", async () => {
      const stream = freshStream();
      const before = await store.headPosition();
      const sizes = [10_000, 10_000, 10_000, 50_000, 10_000, 10_000, 10_000, 10_000, 10_000];
      await store.append(
        stream,
        sizes.map((size, n) => ({ ...event(n), data: { n, text: 'x'.repeat(size) } })),
        'no_stream',
      );
      const batches = await new Promise<StoredEvent[][]>((resolve, reject) => {
        const all: StoredEvent[][] = [];
        const sub = store.subscribe(
          before,
          async (batch) => {
            all.push(batch.filter((e) => e.streamId === stream));
            if (all.flat().length >= sizes.length) void sub.close().then(() => resolve(all));
          },
          reject,
          { maxBatchBytes: 25_000 },
        );
      });
      expect(batches.flat().map((e) => e.data.n)).toEqual(sizes.map((_, n) => n));
      for (const batch of batches.filter((b) => b.length > 1)) {
        expect(Buffer.byteLength(JSON.stringify(batch.map((e) => e.data)))).toBeLessThanOrEqual(25_000);
      }
      // Nothing was read whole: the 90 KB backlog came in several batches.
      expect(batches.filter((b) => b.length > 0).length).toBeGreaterThanOrEqual(4);
    });

    test('headPosition is the position of the newest event', async () => {
      const stream = freshStream();
      const result = await store.append(stream, [event(1)], 'no_stream');
      expect(await store.headPosition()).toBe(result.position);
    });

    test('categories: a subscription and a head position see only their own streams', async () => {
      const triggerHead = await store.headPosition();
      const signalHead = await store.headPosition('signal');
      const signal = freshSignal();
      const appended = await store.append(signal, [event(1)], 'no_stream');
      expect(await store.headPosition()).toEqual(triggerHead);
      expect(await store.headPosition('signal')).toBe(appended.position);
      const trigger = freshStream();
      await store.append(trigger, [event(2)], 'no_stream');
      const seen = await collect(store, signalHead, (all) => all.some((e) => e.streamId === signal), { category: 'signal', pollMs: 10 });
      expect(seen.every((e) => e.streamId.startsWith('signal-'))).toBe(true);
      const triggers = await collect(store, triggerHead, (all) => all.some((e) => e.streamId === trigger));
      expect(triggers.some((e) => e.streamId === signal)).toBe(false);
    });

    test('countAfter counts the category after a position, up to its cap', async () => {
      const from = await store.headPosition('signal');
      for (let i = 0; i < 3; i++) await store.append(freshSignal(), [event(i)], 'no_stream');
      await store.append(freshStream(), [event(9)], 'no_stream');
      expect(await store.countAfter('signal', from, 100)).toBe(3);
      expect(await store.countAfter('signal', from, 2)).toBe(2);
    });

    test('readCategory pages through one category in position order, each page after the last one', async () => {
      const from = await store.headPosition();
      const written: bigint[] = [];
      for (let i = 0; i < 5; i++) {
        written.push((await store.append(freshStream(), [event(i)], 'no_stream')).position);
        await store.append(freshSignal(), [event(i)], 'no_stream');
      }
      const pages: StoredEvent[][] = [];
      let after: bigint | 'start' = from;
      for (;;) {
        const page = await store.readCategory('action_trigger', after, 2);
        if (page.length === 0) break;
        pages.push(page);
        after = page[page.length - 1]!.position;
      }
      expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
      expect(pages.flat().map((e) => e.position)).toEqual(written);
      expect(pages.flat().every((e) => e.streamId.startsWith(TRIGGER_STREAM_PREFIX))).toBe(true);
      expect((await store.readCategory('action_trigger', 'start', 1))[0]!.position).toBeLessThanOrEqual(written[0]!);
    });

    test('removeRecordedBefore removes old signal streams only, and their ids may start again', async () => {
      const old = freshSignal();
      const trigger = freshStream();
      await store.append(old, [event(1)], 'no_stream');
      await store.append(trigger, [event(1)], 'no_stream');
      await new Promise((r) => setTimeout(r, 50));
      const cutoff = new Date();
      await new Promise((r) => setTimeout(r, 50));
      const recent = freshSignal();
      await store.append(recent, [event(2)], 'no_stream');
      const head = (await store.headPosition('signal')) as bigint;
      // Never past `through`: here, nothing.
      expect(await store.removeRecordedBefore('signal', cutoff, 0n, 1000)).toBe(0);
      let removed = 0;
      for (let n; (n = await store.removeRecordedBefore('signal', cutoff, head, 1000)) > 0;) removed += n;
      expect(removed).toBeGreaterThanOrEqual(1);
      expect(await store.read(old)).toEqual([]);
      expect(await store.read(recent)).toHaveLength(1);
      expect(await store.read(trigger)).toHaveLength(1);
      await store.append(old, [event(3)], 'no_stream');
      expect((await store.read(old)).map((e) => e.data)).toEqual([{ n: 3 }]);
    });

    test("truncateBefore drops a stream's older events; the stream goes on from its last revision", async () => {
      const stream = `relay-${randomUUID()}`;
      await store.append(stream, [event(0), event(1), event(2)], 'no_stream');
      await store.truncateBefore(stream, 2n);
      expect((await store.read(stream)).map((e) => e.revision)).toEqual([2n]);
      await expect(store.append(stream, [event(3)], 1n)).rejects.toBeInstanceOf(WrongExpectedRevision);
      await store.append(stream, [event(3)], 2n);
      expect((await store.read(stream)).map((e) => e.revision)).toEqual([2n, 3n]);
    });
  });
};
