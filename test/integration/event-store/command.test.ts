import * as E from 'fp-ts/Either';
import { foldStream, runCommand, StreamKind } from '../../../src/event-store/command';
import { EventStore, StoredEvent, UnreadableEvent } from '../../../src/event-store/port';
import { freshStorePerTest } from '../../support/temp-store';

/** A counter: each `Added` event adds its amount. */
const counter: StreamKind<number, number> = {
  initial: 0,
  evolve: (total, amount) => total + amount,
  read: (e: StoredEvent) => {
    if (e.type !== 'Added' || typeof e.data.amount !== 'number')
      throw new UnreadableEvent(e.streamId, e.revision, `${e.type} is not a counter event`);
    return e.data.amount;
  },
};
const added = (amount: number) => ({ type: 'Added', data: { amount }, metadata: {} });

/** Adds `amount` unless the total would pass `max`; a lost race decides again, up to `attempts` times. */
const add = (store: EventStore, amount: number, max = Infinity, attempts = Infinity) =>
  runCommand(store, 'counter-1', {
    load: () => foldStream(store, 'counter-1', counter),
    decide: ({ state }) =>
      state + amount > max ? E.left(`over ${max}`) : E.right({ events: amount === 0 ? [] : [added(amount)], result: state + amount }),
    retry: async (attempt) => attempt < attempts,
    lost: () => 'lost',
  });

const t = freshStorePerTest();

test('a command decides on the folded stream and appends expecting the revision it read', async () => {
  const first = await add(t.store, 2);
  const second = await add(t.store, 3);
  expect(E.isRight(first) && first.right.result).toBe(2);
  expect(E.isRight(second) && [second.right.result, second.right.loaded.revision, second.right.appended?.nextRevision]).toEqual([
    5,
    0n,
    1n,
  ]);
  expect((await foldStream(t.store, 'counter-1', counter)).state).toBe(5);
});

test('a refusal appends nothing, and a decision of no events appends nothing', async () => {
  await add(t.store, 4);
  expect(await add(t.store, 4, 5)).toEqual(E.left('over 5'));
  const nothing = await add(t.store, 0);
  expect(E.isRight(nothing) && nothing.right.appended).toBeUndefined();
  expect(await t.store.read('counter-1')).toHaveLength(1);
});

test('racing commands each decide again on the state the winner left: none is lost, none counted twice', async () => {
  const outcomes = await Promise.all(Array.from({ length: 20 }, () => add(t.store, 1)));
  expect(outcomes.every(E.isRight)).toBe(true);
  expect((await foldStream(t.store, 'counter-1', counter)).state).toBe(20);
  // Each saw a different total: every one decided on the stream as its append found it.
  expect(new Set(outcomes.map((o) => E.isRight(o) && o.right.result)).size).toBe(20);
});

test('a command that may not retry gives up with its own answer when another writer got there first', async () => {
  const outcomes = await Promise.all(Array.from({ length: 5 }, () => add(t.store, 1, Infinity, 1)));
  const lost = outcomes.filter((o) => E.isLeft(o));
  expect(lost.length).toBeGreaterThan(0);
  expect(lost.every((o) => E.isLeft(o) && o.left === 'lost')).toBe(true);
  expect((await foldStream(t.store, 'counter-1', counter)).state).toBe(outcomes.length - lost.length);
});

test('an event the kind cannot read stops the command; it is never folded on a guess', async () => {
  await t.store.append('counter-1', [{ type: 'Renamed', data: {}, metadata: {} }], 'no_stream');
  await expect(add(t.store, 1)).rejects.toBeInstanceOf(UnreadableEvent);
  expect(await t.store.read('counter-1')).toHaveLength(1);
});
