import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { openSqliteStore } from '../../src/event-store/sqlite';
import { EventStore } from '../../src/event-store/port';
import { silentLogger } from '../../src/kernel/logger';
import { acceptedEvent, signalStreamOf } from '../../src/model/signals/signal-record';
import { Relay, startRelay } from '../../src/signals/intake/relay';
import { relayCheckpoint } from '../../src/model/signals/relay-lease';
import { DispatchTurns, SignalEnvelope } from '../../src/dispatch/types';
import type { GiveTurn } from '../../src/dispatch/ordering';
import { turnStateOf } from '../../src/ordering/turns';
import { tempDir } from '../support/test-app';
import { until } from '../support/until';

/**
 * The relay keeps starting signals stored after one whose start is slow (no batch waits for
 * another), yet its checkpoint never passes a signal whose start has not ended: a relay that
 * dies then starts that one again. Real SQLite store; `start` is a gate the test opens.
 */
const envelope = (id: string): SignalEnvelope => ({
  id,
  signal: 'post_save',
  app_label: 'shop',
  model_name: 'order',
  instance: { id },
  occurred_at: new Date().toISOString(),
});
const accept = (store: EventStore, id: string) =>
  store.append(
    signalStreamOf(id),
    [
      acceptedEvent(
        {
          signal: envelope(id),
          not_matched: [],
          not_matched_truncated: false,
          plan: {
            triggers: [],
            actions: [{ deliveryId: `${id}-w0`, triggerId: 't', version: 1, kind: 'webhook', index: 0, timeoutSecs: 10 }],
          },
        },
        new Date(),
      ),
    ],
    'no_stream',
  );
/** A signal whose plan puts its dispatch in the order `order` (a `per_instance` trigger). */
const acceptOrdered = (store: EventStore, id: string, order: string) =>
  store.append(
    signalStreamOf(id),
    [
      acceptedEvent(
        {
          signal: envelope(id),
          not_matched: [],
          not_matched_truncated: false,
          plan: {
            triggers: [{ triggerId: 't', version: 1, ordering: { instanceKey: order, orderWorkflowId: `ordered-t-${order}` } }],
            actions: [{ deliveryId: `${id}-w0`, triggerId: 't', version: 1, kind: 'webhook', index: 0, timeoutSecs: 10 }],
          },
        },
        new Date(),
      ),
    ],
    'no_stream',
  );
/** Turns given to dispatches waiting in an order, as `<workflow id> <trigger id>`. */
const told: string[] = [];
const noOrders: GiveTurn = async (workflowId, triggerId) => {
  told.push(`${workflowId} ${triggerId}`);
  return 'given';
};

let dir: string;
let store: EventStore;
let relay: Relay | undefined;
beforeEach(() => {
  dir = tempDir('at-relay-');
  store = openSqliteStore(join(dir, 'events.sqlite'));
});
afterEach(async () => {
  await relay?.stop();
  relay = undefined;
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

it('starts later signals while an earlier start hangs, and keeps its checkpoint before the hanging one', async () => {
  const gates = new Map<string, () => void>();
  const started: string[] = [];
  const ended: string[] = [];
  relay = startRelay({
    store,
    log: silentLogger,
    giveTurn: noOrders,
    start: (signal) =>
      new Promise<void>((resolve) => {
        started.push(signal.id);
        gates.set(signal.id, () => {
          ended.push(signal.id);
          resolve();
        });
      }),
  });
  await until(() => relay!.status().holding);

  const first = await accept(store, 'slow');
  await until(() => started.includes('slow'));
  await accept(store, 'a');
  const last = await accept(store, 'b');
  // Before: the relay waited for 'slow' before it read 'a' and 'b'.
  await until(() => started.includes('a') && started.includes('b'));
  gates.get('a')!();
  gates.get('b')!();
  await until(() => ended.length === 2);
  await new Promise((r) => setTimeout(r, 300)); // past the checkpoint's save interval
  expect(relay.status().checkpoint).toBe('start'); // 'slow' has not ended: nothing is past the checkpoint
  expect(await relayCheckpoint(store)).toBe('start');

  gates.get('slow')!();
  await until(() => relay!.status().checkpoint === last.position);
  expect(last.position).toBeGreaterThan(first.position);
  // Saved within CHECKPOINT_SAVE_MS (200 ms), not at the next renewal (~1.7 s): other processes stop showing `queued`.
  const moved = Date.now();
  while ((await relayCheckpoint(store)) !== last.position) await new Promise((r) => setTimeout(r, 10));
  expect(Date.now() - moved).toBeLessThan(1000);
  await relay.stop();
  expect(await relayCheckpoint(store)).toBe(last.position);
  relay = undefined;
});

it('stopped part-way through a batch, keeps its checkpoint before the signals not started yet; the next relay starts them', async () => {
  const ids = ['s0', 's1', 's2', 's3', 's4', 's5'];
  // Stored before the relay runs: it reads all six as one batch.
  for (const id of ids) await accept(store, id);
  const gates: Array<() => void> = [];
  const started: string[] = [];
  relay = startRelay({
    store,
    log: silentLogger,
    giveTurn: noOrders,
    concurrency: 2,
    start: (signal) =>
      new Promise<void>((resolve) => {
        started.push(signal.id);
        gates.push(resolve);
      }),
  });
  await until(() => started.length === 2);
  // Stopped while the batch waits for a slot; the two starts under way then end.
  const stopping = relay.stop();
  gates.forEach((open) => open());
  await stopping;
  relay = undefined;
  expect(started).toEqual(['s0', 's1']);
  expect(await relayCheckpoint(store)).toBe('start');

  const again: string[] = [];
  relay = startRelay({ store, log: silentLogger, giveTurn: noOrders, start: async (signal) => void again.push(signal.id) });
  await until(() => again.length >= 6);
  // Started again from the checkpoint: the first two a second time (the same workflow ids start nothing new).
  expect(again).toEqual(ids);
});

it('bounds the starts in flight across batches (concurrency)', async () => {
  let inFlight = 0;
  let most = 0;
  const gates: Array<() => void> = [];
  relay = startRelay({
    store,
    log: silentLogger,
    giveTurn: noOrders,
    concurrency: 3,
    start: () =>
      new Promise<void>((resolve) => {
        most = Math.max(most, ++inFlight);
        gates.push(() => {
          inFlight--;
          resolve();
        });
      }),
  });
  await until(() => relay!.status().holding);
  for (let i = 0; i < 8; i++) await accept(store, `s${i}`);
  await until(() => gates.length === 3);
  await new Promise((r) => setTimeout(r, 100));
  expect(gates.length).toBe(3); // the fourth waits for a slot
  for (let opened = 0; opened < 8; opened++) {
    await until(() => gates.length > opened);
    gates[opened]!();
  }
  await until(() => inFlight === 0 && gates.length === 8);
  expect(most).toBe(3);
});

it('saves a checkpoint that moves just after a save within 200 ms, not at the next renewal', async () => {
  const gates = new Map<string, () => void>();
  // Renewals every 10 s: only the trailing save can store the second move in time.
  relay = startRelay({
    store,
    log: silentLogger,
    giveTurn: noOrders,
    leaseMs: 30_000,
    start: (signal) =>
      new Promise<void>((resolve) => {
        gates.set(signal.id, resolve);
      }),
  });
  await until(() => relay!.status().holding);
  const first = await accept(store, 'one');
  await until(() => gates.has('one')); // two batches: the checkpoint moves by whole batches
  const second = await accept(store, 'two');
  await until(() => gates.has('two'));
  await new Promise((r) => setTimeout(r, 250)); // past the save interval since taking the lease
  gates.get('one')!();
  const savedFirst = Date.now();
  while ((await relayCheckpoint(store)) !== first.position) {
    expect(Date.now() - savedFirst).toBeLessThan(1000);
    await new Promise((r) => setTimeout(r, 5));
  }
  gates.get('two')!(); // within 200 ms of the save just made
  while ((await relayCheckpoint(store)) !== second.position) {
    expect(Date.now() - savedFirst).toBeLessThan(1000);
    await new Promise((r) => setTimeout(r, 5));
  }
});

it('queues dispatches in their instance order as stored before each starts: the first of an order starts with its turn, a later one without, other orders untouched', async () => {
  const turns = new Map<string, DispatchTurns | undefined>();
  relay = startRelay({
    store,
    log: silentLogger,
    giveTurn: noOrders,
    start: async (signal, _plan, _redelivery, _requestId, t) => {
      turns.set(signal.id, t);
    },
  });
  const a1 = await acceptOrdered(store, 'a1', 'x');
  const b1 = await acceptOrdered(store, 'b1', 'y');
  const a2 = await acceptOrdered(store, 'a2', 'x');
  await accept(store, 'plain');
  await until(() => turns.size === 4);
  expect(turns.get('a1')).toEqual({ position: a1.position.toString(), given: ['t'] });
  expect(turns.get('b1')).toEqual({ position: b1.position.toString(), given: ['t'] });
  expect(turns.get('a2')).toEqual({ position: a2.position.toString(), given: [] });
  expect(turns.get('plain')).toBeUndefined();
  expect(turnStateOf(await store.read('ordered-t-x')).pending.map((p) => p.workflowId)).toEqual(['signal-a1', 'signal-a2']);
});

it('a dispatch Temporal refuses for good is passed over in its order: the one after it is told its turn', async () => {
  told.length = 0;
  const started: string[] = [];
  relay = startRelay({
    store,
    log: silentLogger,
    giveTurn: noOrders,
    start: async (signal) => {
      if (signal.id === 'c1') throw Object.assign(new Error('request too large'), { code: 3 });
      started.push(signal.id);
    },
  });
  await acceptOrdered(store, 'c1', 'z');
  await acceptOrdered(store, 'c2', 'z');
  await until(() => told.length === 1, 10_000);
  expect(told).toEqual(['signal-c2 t']);
  expect(started).toEqual(['c2']);
  expect(turnStateOf(await store.read('ordered-t-z')).pending.map((p) => p.workflowId)).toEqual(['signal-c2']);
});

it('a relay that stops while it cannot write dispatches into their order gives the writes up without an unhandled rejection; the checkpoint stays before them', async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (e: unknown) => {
    unhandled.push(e);
  };
  process.on('unhandledRejection', onUnhandled);
  try {
    const started: string[] = [];
    // The order's stream refuses writes (the store is failing for it).
    const failingOrders: EventStore = {
      ...store,
      append: (streamId, events, expected) =>
        streamId.startsWith('ordered-') ? Promise.reject(new Error('disk full')) : store.append(streamId, events, expected),
    };
    relay = startRelay({
      store: failingOrders,
      log: silentLogger,
      giveTurn: noOrders,
      start: async (signal) => {
        started.push(signal.id);
      },
    });
    await acceptOrdered(store, 'd1', 'w');
    await acceptOrdered(store, 'd2', 'w');
    // d1 had its turn (the order was idle) and started; d2 waits for its write, which keeps failing.
    await until(() => started.includes('d1'));
    await new Promise((r) => setTimeout(r, 300));
    await relay.stop();
    relay = undefined;
    await new Promise((r) => setTimeout(r, 50));
    expect(started).toEqual(['d1']);
    expect(unhandled).toEqual([]);
    // Neither was written, so the checkpoint stayed before both: the next holder queues and starts them again.
    expect(await relayCheckpoint(store)).toBe('start');
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});
