import { EventEmitter } from 'node:events';
import { followPositions } from '../../src/event-store/follow-positions';
import { StoredEvent } from '../../src/event-store/port';

const eventAt = (position: number): StoredEvent => ({
  position: BigInt(position),
  streamId: `action_trigger-${position}`,
  revision: 0n,
  type: 'TriggerCreated',
  data: {},
  metadata: {},
});

/** Ten stored events, positions 1..10, and every position a read started after. */
const storeOfTen = () => {
  const asked: bigint[] = [];
  const events = Array.from({ length: 10 }, (_, i) => eventAt(i + 1));
  const readAfter = (position: bigint, limit: number) => {
    asked.push(position);
    return { events: events.filter((e) => e.position > position).slice(0, limit), cut: false };
  };
  return { asked, readAfter };
};

test('a subscriber that is further on elsewhere is not handed the events before that point again', async () => {
  const { asked, readAfter } = storeOfTen();
  const handed: bigint[] = [];
  const done = new Promise<void>((resolve) => {
    const sub = followPositions(
      readAfter,
      new EventEmitter(),
      10_000,
      'start',
      async (batch) => {
        handed.push(...batch.map((e) => e.position));
        if (handed.at(-1) === 10n) {
          void sub.close();
          resolve();
        }
      },
      (e) => {
        throw e;
      },
      { resumeAfter: () => 7n },
    );
  });
  await done;
  expect(asked[0]).toBe(7n);
  expect(handed).toEqual([8n, 9n, 10n]);
});

test("a subscriber's own position never moves back for a resume point behind it", async () => {
  const { asked, readAfter } = storeOfTen();
  const handed: bigint[] = [];
  const emitter = new EventEmitter();
  let resume: bigint | 'start' = 'start';
  let first: () => void = () => undefined;
  const handedFirst = new Promise<void>((resolve) => {
    first = resolve;
  });
  const sub = followPositions(
    readAfter,
    emitter,
    10_000,
    4n,
    async (batch) => {
      handed.push(...batch.map((e) => e.position));
      first();
    },
    (e) => {
      throw e;
    },
    { resumeAfter: () => resume },
  );
  await handedFirst;
  resume = 2n;
  emitter.emit('append');
  await new Promise((r) => setTimeout(r, 50));
  expect(handed).toEqual([5n, 6n, 7n, 8n, 9n, 10n]);
  expect(asked.every((p) => p >= 4n)).toBe(true);
  await sub.close();
});

test('a subscription wakes for appends to its own category, not for those to others', async () => {
  const asked: bigint[] = [];
  const readAfter = (position: bigint) => {
    asked.push(position);
    return { events: [], cut: false };
  };
  const emitter = new EventEmitter();
  const sub = followPositions(
    readAfter,
    emitter,
    60_000,
    'start',
    async () => undefined,
    (e) => {
      throw e;
    },
    { category: 'signal' },
  );
  const settled = () => new Promise((r) => setTimeout(r, 20));
  await settled();
  expect(asked).toHaveLength(1); // the first read, then asleep for a minute
  emitter.emit('append', new Set(['action_trigger']));
  await settled();
  expect(asked).toHaveLength(1);
  emitter.emit('append', new Set(['action_trigger', 'signal']));
  await settled();
  expect(asked).toHaveLength(2);
  emitter.emit('append'); // a failed group: any category may have been appended
  await settled();
  expect(asked).toHaveLength(3);
  await sub.close();
});
