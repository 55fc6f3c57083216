import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { openSqliteStore } from '../../src/event-store/sqlite';
import { EventStore } from '../../src/event-store/port';
import { createTurnStore } from '../../src/ordering/turn-store';
import { turnStateOf } from '../../src/ordering/turns';
import { InstanceQueues } from '../../src/ordering/instance-orders';
import { tempDir } from '../support/test-app';

/**
 * The relay's writes of dispatches into their instance orders: in the order it read them, the
 * ones that came during a write together in the next, a failed write tried again as it was; the
 * first of an idle order told its turn before its write ends. Real SQLite store.
 */
let dir: string;
let store: EventStore;
beforeEach(() => {
  dir = tempDir('at-queues-');
  store = openSqliteStore(join(dir, 'events.sqlite'));
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const d = (n: number) => ({ workflowId: `signal-${n}`, position: String(n) });
const order = (key: string) => ({ orderId: `ordered-t-${key}`, triggerId: 't' });
const pendingIn = async (orderId: string) => turnStateOf(await store.read(orderId)).pending.map((p) => p.workflowId);

/** Queues over the real store; `failures` writes fail first; `holding` says whether the relay still holds its lease; `gate` holds each write until it resolves. */
const queuesOver = (failures = 0, holding = () => true, gate = async () => undefined as unknown) => {
  const turns = createTurnStore(store);
  const writes: string[][] = [];
  let left = failures;
  const queues = new InstanceQueues({
    turns: {
      isIdle: turns.isIdle,
      queue: async (orderId, entries) => {
        await gate();
        if (left-- > 0) throw new Error('store unavailable');
        writes.push(entries.map((e) => e.workflowId));
        return turns.queue(orderId, entries);
      },
    },
    holding,
    gone: () => new Error('lease lost'),
    retryPause: async () => undefined,
  });
  return { queues, writes };
};

test('dispatches are queued as read; those that came during a write go together in the next; only the first has its turn', async () => {
  const { queues, writes } = queuesOver();
  const queued = [1, 2, 3].map((n) => queues.queue([order('i1')], d(n)));
  expect(await Promise.all(queued.map((q) => q.given))).toEqual([['t'], [], []]);
  await Promise.all(queued.map((q) => q.written));
  expect(writes).toEqual([['signal-1'], ['signal-2', 'signal-3']]);
  expect(await pendingIn('ordered-t-i1')).toEqual(['signal-1', 'signal-2', 'signal-3']);
});

test('a signal in two orders is queued in each, and has its turn in the one that was idle', async () => {
  const { queues } = queuesOver();
  await queues.queue([order('i1')], d(1)).written;
  const second = queues.queue([order('i1'), order('i2')], d(2));
  expect(await second.given).toEqual(['t']);
  await second.written;
  expect(await pendingIn('ordered-t-i1')).toEqual(['signal-1', 'signal-2']);
  expect(await pendingIn('ordered-t-i2')).toEqual(['signal-2']);
});

test('a write that fails is tried again with the same dispatches in the same order', async () => {
  const { queues, writes } = queuesOver(2);
  const queued = [1, 2].map((n) => queues.queue([order('i1')], d(n)));
  expect(await Promise.all(queued.map((q) => q.given))).toEqual([['t'], []]);
  await Promise.all(queued.map((q) => q.written));
  expect(writes).toEqual([['signal-1'], ['signal-2']]);
  expect(await pendingIn('ordered-t-i1')).toEqual(['signal-1', 'signal-2']);
});

test('the first of an idle order has its turn before its write ends; one after it waits for its own write', async () => {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const { queues } = queuesOver(
    0,
    () => true,
    () => gate,
  );
  const first = queues.queue([order('i1')], d(1));
  const second = queues.queue([order('i1')], d(2));
  let secondKnown = false;
  void second.given.then(() => {
    secondKnown = true;
  });
  expect(await first.given).toEqual(['t']);
  await new Promise((r) => setTimeout(r, 50));
  expect(secondKnown).toBe(false);
  expect(await pendingIn('ordered-t-i1')).toEqual([]);
  open();
  expect(await second.given).toEqual([]);
  await Promise.all([first.written, second.written]);
  expect(await pendingIn('ordered-t-i1')).toEqual(['signal-1', 'signal-2']);
});

test('a relay that lost its lease queues nothing more: the write is given up and says so', async () => {
  let holding = true;
  const { queues } = queuesOver(1, () => holding);
  const first = queues.queue([order('i1')], d(1));
  first.given.catch(() => undefined);
  holding = false;
  await expect(first.written).rejects.toThrow('lease lost');
  expect(await pendingIn('ordered-t-i1')).toEqual([]);
});
