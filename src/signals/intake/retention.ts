import { Checkpoint, EventStore, Retained } from '../../event-store/port';
import { Logger } from '../../kernel/logger';
import { relayCheckpoint } from '../../model/signals/relay-lease';
import type { SignalIndex } from '../../projections/signal-index';

/** Signals removed per transaction: small enough that intake never waits long behind it. */
const BATCH = 500;
const INTERVAL_MS = 10 * 60_000;

const removeBefore = async (store: EventStore, category: Retained, before: Date, through: Checkpoint, stopped: () => boolean) => {
  if (through === 'start') return 0;
  let removed = 0;
  for (let n = BATCH; n === BATCH && !stopped();) {
    n = await store.removeRecordedBefore(category, before, through, BATCH);
    removed += n;
    await new Promise((r) => setImmediate(r));
  }
  return removed;
};

/**
 * Removes stored signals (and their delivery records, and the alerts) older than the retention window, oldest first, every INTERVAL_MS and
 * once at start; never one the relay has not passed (a backlog is kept however old). Trigger
 * streams are never removed. Several processes may run it at once: removal is idempotent.
 */
export const startRetention = (
  store: EventStore,
  retentionMs: number,
  log: Logger,
  index?: Pick<SignalIndex, 'removeSignalsBefore'>,
  intervalMs = INTERVAL_MS,
) => {
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const sweep = async () => {
    const before = new Date(Date.now() - retentionMs);
    const through = await relayCheckpoint(store);
    const signals = await removeBefore(store, 'signal', before, through, () => stopped);
    // The signal index forgets the same signals (GET /api/signals lists only what the store keeps).
    if (index && through !== 'start') index.removeSignalsBefore(before, through);
    // Delivery records only matter while their dispatch may replay, long done after the window.
    const deliveries = await removeBefore(store, 'delivered', before, await store.headPosition('delivered'), () => stopped);
    // An order's records older than the window are of turns long ended (a turn waits at most as long as its retries).
    const turns = await removeBefore(store, 'ordered', before, await store.headPosition('ordered'), () => stopped);
    // Alerts older than the window have long been sent or given up (within an hour).
    const alerts = await removeBefore(store, 'alert', before, await store.headPosition('alert'), () => stopped);
    if (signals + deliveries + turns + alerts > 0)
      log.info('removed signals past their retention', { signals, deliveries, turns, alerts, before: before.toISOString() });
  };
  const run = () => {
    running = sweep().catch((e: unknown) => log.warn('signal retention failed; trying again later', { error: String(e) }));
  };
  const timer = setInterval(run, intervalMs);
  timer.unref();
  run();
  return {
    sweep: () => {
      run();
      return running;
    },
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
};
