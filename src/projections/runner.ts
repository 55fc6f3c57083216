import { Category, EventStore, StoreUnavailable, Subscription } from '../event-store/port';
import { Logger } from '../kernel/logger';
import { ReadModel, ReadModelUnavailable } from './read-model';

export interface ProjectionRunner {
  /**
   * Resolves true once the read model holds every event up to `position`, or false after
   * `timeoutMs` (a write never hangs on its read model).
   */
  waitFor(position: bigint, timeoutMs?: number): Promise<boolean>;
  /** True when the read model has applied the store's newest event. */
  caughtUp(): Promise<boolean>;
  /** Why the projection is stuck (an unreadable event, a damaged read model), or undefined. */
  failure(): string | undefined;
  /**
   * Resolves when the read model has caught up with the store as it was at start, or is stuck
   * (then `failure()` says why: the service starts, and /readyz reports it).
   */
  ready: Promise<void>;
  /**
   * Trigger events not applied yet (counted to a cap), and for how long the read model has been
   * behind: since it last applied a batch or was seen caught up (0 when caught up). A stuck
   * projection's seconds grow; one following live stays near its poll interval.
   */
  lag(): Promise<{ events: number; seconds: number }>;
  stop(): Promise<void>;
}

const LAG_COUNT_CAP = 1_000_000;

/** A write waiting for the read model to hold its position. */
interface Waiter {
  position: bigint;
  resolve: (ok: boolean) => void;
  timer?: NodeJS.Timeout;
}

const reached = (checkpoint: bigint | 'start', position: bigint) => checkpoint !== 'start' && checkpoint >= position;

/** How often the runner checks that its read-model file is sound and still the one at its path. */
const HEALTH_INTERVAL_MS = 1000;

/** What a runner keeps in step: the trigger read model, or its signal index (signalProjectionOf). */
export type Projected = Pick<ReadModel, 'checkpoint' | 'apply' | 'reset' | 'fault' | 'rebuild' | 'recovering' | 'recovered'>;

/** The read model's signal index as a projection of the `signal` category. */
export const signalProjectionOf = (model: ReadModel): Projected => ({
  checkpoint: () => model.signalCheckpoint(),
  apply: (events) => model.applySignals(events),
  reset: () => model.resetSignals(),
  fault: () => model.fault(),
  rebuild: () => model.rebuild(),
  recovering: () => model.signalsRecovering(),
  recovered: () => model.signalsRecovered(),
});

/**
 * Keeps the read model in step with the store: catches up from the stored checkpoint at
 * start, then follows live. Several processes may run one on the same read-model file.
 * An event that cannot be applied stops it there (logged, retried, `failure()` says why);
 * a damaged read model is moved aside and rebuilt from the first event.
 */
export const startProjection = async (
  store: EventStore,
  model: Projected,
  log: Logger,
  category: Category = 'action_trigger',
): Promise<ProjectionRunner> => {
  const head = await store.headPosition(category);
  const stored = model.checkpoint();
  if (stored !== 'start' && (head === 'start' || stored > head)) {
    log.warn('read model is ahead of the event store (store was reset?): rebuilding it');
    model.reset();
  }
  let checkpoint = model.checkpoint();
  let failure: string | undefined;
  let stopped = false;
  let caughtUpAt = Date.now();
  const waiters = new Set<Waiter>();
  const settle = () => {
    for (const w of waiters)
      if (reached(checkpoint, w.position)) {
        waiters.delete(w);
        clearTimeout(w.timer);
        w.resolve(true);
      }
  };
  let stuck: () => void = () => undefined;
  const stuckOnce = new Promise<void>((resolve) => {
    stuck = resolve;
  });
  // A store server that is away is not a stuck projection: it goes on once reads succeed again.
  let storeAway: string | undefined;
  const fail = (e: unknown) => {
    const reason = e instanceof Error ? e.message : String(e);
    if (e instanceof StoreUnavailable) {
      if (storeAway === undefined) log.warn('projection waits for the event store', { category, error: reason });
      storeAway = reason;
      stuck();
      return;
    }
    if (reason !== failure) log.error('projection stopped; retrying', { error: reason });
    failure = reason;
    stuck();
  };

  /**
   * The file's own checkpoint ahead of this runner's: another process on the same read model
   * applied those events (API_PROCESSES > 1), so they are not read again here, and the writes
   * waiting for them are answered.
   */
  const appliedElsewhere = (): bigint | 'start' => {
    try {
      const stored = model.checkpoint();
      if (stored !== 'start' && (checkpoint === 'start' || stored > checkpoint)) {
        checkpoint = stored;
        caughtUpAt = Date.now();
        failure = undefined; // what this runner failed on, if anything, another process applied
        settle();
      }
    } catch {
      /* a damaged file: the health check rebuilds it */
    }
    return checkpoint;
  };

  const follow = (from: bigint | 'start'): Subscription =>
    store.subscribe(
      from,
      async (events) => {
        try {
          checkpoint = model.apply(events);
          failure = undefined;
          storeAway = undefined;
          caughtUpAt = Date.now(); // progress: the lag counts from the last batch applied
          if (model.recovering()) void endRecovery().catch(() => undefined);
        } catch (e) {
          if (!(e instanceof ReadModelUnavailable)) {
            checkpoint = model.checkpoint();
            // Another process on the file applied the batch meanwhile: nothing is stuck.
            if (reached(checkpoint, events[events.length - 1]!.position)) {
              failure = undefined;
              return;
            }
          }
          throw e;
        } finally {
          settle();
        }
      },
      (e) => {
        fail(e);
        if (e instanceof ReadModelUnavailable) void rebuild();
      },
      { category, resumeAfter: appliedElsewhere },
    );
  let subscription = follow(checkpoint);

  // Close the subscription, move the damaged file aside, start again from the first event.
  let rebuilding: Promise<void> | undefined;
  const rebuild = (reopen = true) =>
    (rebuilding ??= (async () => {
      await subscription.close();
      if (stopped) return;
      try {
        if (reopen) model.rebuild();
        checkpoint = model.checkpoint();
        failure = undefined; // now simply behind: caughtUp() says when it has caught up again
        log.warn('read model reopened; catching up from its checkpoint', { checkpoint: String(checkpoint) });
      } catch (e) {
        fail(e);
      }
      subscription = follow(checkpoint);
    })().finally(() => {
      rebuilding = undefined;
    }));
  // The model's own checkpoint behind ours: another runner on the same file (the trigger and the
  // signal projections share one) rebuilt it, so this one follows again from there.
  const wentBack = () => {
    try {
      const stored = model.checkpoint();
      return checkpoint !== 'start' && (stored === 'start' || stored < checkpoint);
    } catch {
      return false;
    }
  };
  /**
   * After a rebuild (by this runner or another on the same file), reads of this part answer 503
   * until the file itself has caught up with the store: its stored checkpoint, not this runner's.
   */
  const endRecovery = async () => {
    if (!model.recovering() || rebuilding) return;
    const head = await store.headPosition(category);
    try {
      const stored = model.checkpoint();
      if (head === 'start' || reached(stored, head)) model.recovered();
    } catch {
      /* damaged again: the health check rebuilds */
    }
  };
  const health = setInterval(() => {
    if (model.fault() !== undefined) void rebuild();
    else if (wentBack()) void rebuild(false);
    else void endRecovery().catch(() => undefined);
  }, HEALTH_INTERVAL_MS);
  health.unref();

  const waitFor = (position: bigint, timeoutMs = Infinity) =>
    new Promise<boolean>((resolve) => {
      if (reached(checkpoint, position)) return resolve(true);
      const w: Waiter = { position, resolve };
      waiters.add(w);
      // Cleared once settled: a timer left to run out kept every create's waiter alive for the
      // whole bound, old-generation garbage that cost more CPU than the wait itself.
      if (timeoutMs !== Infinity)
        w.timer = setTimeout(() => {
          if (waiters.delete(w)) resolve(false);
        }, timeoutMs).unref();
    });
  const ready = head === 'start' ? Promise.resolve() : Promise.race([waitFor(head).then(() => undefined), stuckOnce]);

  const isCaughtUp = async () => {
    const now = await store.headPosition(category);
    storeAway = undefined;
    const up = now === 'start' || reached(checkpoint, now);
    if (up) caughtUpAt = Date.now();
    return up;
  };
  return {
    waitFor,
    ready,
    lag: async () => {
      if (await isCaughtUp()) return { events: 0, seconds: 0 };
      const events = await store.countAfter(category, checkpoint, LAG_COUNT_CAP);
      return { events, seconds: events === 0 ? 0 : (Date.now() - caughtUpAt) / 1000 };
    },
    failure: () => failure ?? storeAway ?? model.fault(),
    caughtUp: async () => {
      if (failure ?? model.fault()) return false;
      return isCaughtUp();
    },
    stop: async () => {
      stopped = true;
      clearInterval(health);
      await rebuilding;
      await subscription.close();
    },
  };
};
