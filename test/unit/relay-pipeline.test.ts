import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { openSqliteStore } from '../../src/event-store/sqlite';
import { EventStore } from '../../src/event-store/port';
import { silentLogger } from '../../src/kernel/logger';
import { acceptedEvent, signalStreamOf } from '../../src/signals/model/signal-record';
import { Relay, startRelay } from '../../src/signals/intake/relay';
import { relayCheckpoint } from '../../src/signals/model/relay-lease';
import { SignalEnvelope } from '../../src/dispatch/types';
import { tempDir } from '../support/test-app';

/**
 * The relay keeps starting signals stored after one whose start is slow (no batch waits for
 * another), yet its checkpoint never passes a signal whose start has not ended: a relay that
 * dies then starts that one again. Real SQLite store; `start` is a gate the test opens.
 */
const envelope = (id: string): SignalEnvelope => ({ id, signal: 'post_save', app_label: 'shop', model_name: 'order', instance: { id }, occurred_at: new Date().toISOString() });
const accept = (store: EventStore, id: string) => store.append(signalStreamOf(id), [acceptedEvent({
  signal: envelope(id), not_matched: [], not_matched_truncated: false,
  plan: { triggers: [], actions: [{ deliveryId: `${id}-w0`, triggerId: 't', version: 1, kind: 'webhook', index: 0, timeoutSecs: 10 }] },
}, new Date())], 'no_stream');
/** A signal whose plan puts its dispatch in the order `order` (a `per_instance` trigger). */
const acceptOrdered = (store: EventStore, id: string, order: string) => store.append(signalStreamOf(id), [acceptedEvent({
  signal: envelope(id), not_matched: [], not_matched_truncated: false,
  plan: { triggers: [{ triggerId: 't', version: 1, ordering: { instanceKey: order, orderWorkflowId: `ordered-t-${order}` } }],
    actions: [{ deliveryId: `${id}-w0`, triggerId: 't', version: 1, kind: 'webhook', index: 0, timeoutSecs: 10 }] },
}, new Date())], 'no_stream');
const noOrders = async () => undefined;
const until = async (check: () => boolean, ms = 5000) => {
  for (const end = Date.now() + ms; !check(); await new Promise((r) => setTimeout(r, 5))) if (Date.now() > end) throw new Error('condition not met');
};

let dir: string;
let store: EventStore;
let relay: Relay | undefined;
beforeEach(() => { dir = tempDir('at-relay-'); store = openSqliteStore(join(dir, 'events.sqlite')); });
afterEach(async () => { await relay?.stop(); relay = undefined; await store.close(); rmSync(dir, { recursive: true, force: true }); });

it('starts later signals while an earlier start hangs, and keeps its checkpoint before the hanging one', async () => {
  const gates = new Map<string, () => void>();
  const started: string[] = [];
  const ended: string[] = [];
  relay = startRelay({ store, log: silentLogger, enqueue: noOrders, start: (signal) => new Promise<void>((resolve) => {
    started.push(signal.id);
    gates.set(signal.id, () => { ended.push(signal.id); resolve(); });
  }) });
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
  while (await relayCheckpoint(store) !== last.position) await new Promise((r) => setTimeout(r, 10));
  expect(Date.now() - moved).toBeLessThan(1000);
  await relay.stop();
  expect(await relayCheckpoint(store)).toBe(last.position);
  relay = undefined;
});

it('bounds the starts in flight across batches (concurrency)', async () => {
  let inFlight = 0;
  let most = 0;
  const gates: Array<() => void> = [];
  relay = startRelay({ store, log: silentLogger, enqueue: noOrders, concurrency: 3, start: () => new Promise<void>((resolve) => {
    most = Math.max(most, ++inFlight);
    gates.push(() => { inFlight--; resolve(); });
  }) });
  await until(() => relay!.status().holding);
  for (let i = 0; i < 8; i++) await accept(store, `s${i}`);
  await until(() => gates.length === 3);
  await new Promise((r) => setTimeout(r, 100));
  expect(gates.length).toBe(3); // the fourth waits for a slot
  for (let opened = 0; opened < 8; opened++) { await until(() => gates.length > opened); gates[opened]!(); }
  await until(() => inFlight === 0 && gates.length === 8);
  expect(most).toBe(3);
});

it('saves a checkpoint that moves just after a save within 200 ms, not at the next renewal', async () => {
  const gates = new Map<string, () => void>();
  // Renewals every 10 s: only the trailing save can store the second move in time.
  relay = startRelay({ store, log: silentLogger, enqueue: noOrders, leaseMs: 30_000, start: (signal) => new Promise<void>((resolve) => { gates.set(signal.id, resolve); }) });
  await until(() => relay!.status().holding);
  const first = await accept(store, 'one');
  await until(() => gates.has('one')); // two batches: the checkpoint moves by whole batches
  const second = await accept(store, 'two');
  await until(() => gates.has('two'));
  await new Promise((r) => setTimeout(r, 250)); // past the save interval since taking the lease
  gates.get('one')!();
  const savedFirst = Date.now();
  while (await relayCheckpoint(store) !== first.position) {
    expect(Date.now() - savedFirst).toBeLessThan(1000);
    await new Promise((r) => setTimeout(r, 5));
  }
  gates.get('two')!(); // within 200 ms of the save just made
  while (await relayCheckpoint(store) !== second.position) {
    expect(Date.now() - savedFirst).toBeLessThan(1000);
    await new Promise((r) => setTimeout(r, 5));
  }
});

it('puts dispatches in their instance order as stored, even when a later start ends first, without holding other orders; the ready ones of an order go together', async () => {
  const gates = new Map<string, () => void>();
  const enqueued: string[] = [];
  let sends = 0;
  relay = startRelay({ store, log: silentLogger,
    start: (signal) => new Promise<void>((resolve) => { gates.set(signal.id, resolve); }),
    enqueue: async (order, workflowIds) => { sends++; enqueued.push(...workflowIds.map((id) => `${order.workflowId} ${id}`)); } });
  await acceptOrdered(store, 'a1', 'x');
  await acceptOrdered(store, 'b1', 'y');
  await acceptOrdered(store, 'a2', 'x');
  await until(() => gates.size === 3);
  gates.get('a2')!();
  gates.get('b1')!();
  await until(() => enqueued.length === 1);
  await new Promise((r) => setTimeout(r, 100));
  // b1 joined its own order; a2 waits for a1, stored before it.
  expect(enqueued).toEqual(['ordered-t-y signal-b1']);
  gates.get('a1')!();
  await until(() => enqueued.length === 3);
  expect(enqueued).toEqual(['ordered-t-y signal-b1', 'ordered-t-x signal-a1', 'ordered-t-x signal-a2']);
  expect(sends).toBe(2);
});

it('a dispatch that could not join its order (Temporal refusing) is sent again with those after it, in order, and the checkpoint passes them once they joined', async () => {
  const enqueued: string[] = [];
  let refusals = 2;
  relay = startRelay({ store, log: silentLogger, start: async () => undefined,
    enqueue: async (order, workflowIds) => {
      if (refusals-- > 0) throw new Error('temporal unavailable');
      enqueued.push(...workflowIds.map((id) => `${order.workflowId} ${id}`));
    } });
  await acceptOrdered(store, 'c1', 'z');
  const last = await acceptOrdered(store, 'c2', 'z');
  await until(() => enqueued.length === 2);
  expect(enqueued).toEqual(['ordered-t-z signal-c1', 'ordered-t-z signal-c2']);
  for (const end = Date.now() + 5000; await relayCheckpoint(store) !== last.position; await new Promise((r) => setTimeout(r, 5))) {
    if (Date.now() > end) throw new Error('the checkpoint did not pass the signals');
  }
});
