import { Category, EventStore } from '../event-store/port';
import { Logger } from '../kernel/logger';
import { ReadModel } from './read-model';
import { followStore } from './follow-store';
import { positionWaiters } from './position-waiters';
import { failureRecorder, Projected, ProjectionState, reached } from './projection-state';

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

/** The store's head at start; a read model ahead of it (the store was reset) is rebuilt from the first event. */
const headAtStart = async (store: EventStore, model: Projected, log: Logger, category: Category) => {
  const head = await store.headPosition(category);
  const stored = model.checkpoint();
  if (stored !== 'start' && (head === 'start' || stored > head)) {
    log.warn('read model is ahead of the event store (store was reset?): rebuilding it');
    model.reset();
  }
  return head;
};

/** What a runner says of itself: how far behind, whether caught up, why stuck. */
const readouts = (store: EventStore, model: Projected, category: Category, state: ProjectionState) => {
  const isCaughtUp = async () => {
    const now = await store.headPosition(category);
    state.storeAway = undefined;
    const up = now === 'start' || reached(state.checkpoint, now);
    if (up) state.caughtUpAt = Date.now();
    return up;
  };
  return {
    lag: async () => {
      if (await isCaughtUp()) return { events: 0, seconds: 0 };
      const events = await store.countAfter(category, state.checkpoint, LAG_COUNT_CAP);
      return { events, seconds: events === 0 ? 0 : (Date.now() - state.caughtUpAt) / 1000 };
    },
    failure: () => state.failure ?? state.storeAway ?? model.fault(),
    caughtUp: async () => {
      if (state.failure ?? model.fault()) return false;
      return isCaughtUp();
    },
  };
};

/**
 * Keeps the read model in step with the store: catches up from the stored checkpoint at
 * start, then follows live (follow-store.ts). Several processes may run one on the same
 * read-model file. An event that cannot be applied stops it there (logged, retried, `failure()`
 * says why); a damaged read model is moved aside and rebuilt from the first event.
 */
export const startProjection = async (
  store: EventStore,
  model: Projected,
  log: Logger,
  category: Category = 'action_trigger',
): Promise<ProjectionRunner> => {
  const head = await headAtStart(store, model, log, category);
  const state: ProjectionState = { checkpoint: model.checkpoint(), caughtUpAt: Date.now() };
  const { settle, waitFor } = positionWaiters(() => state.checkpoint);
  const { fail, stuckOnce } = failureRecorder(state, log, category);
  const following = followStore({ store, model, log, category, state, settle, fail });
  const ready = head === 'start' ? Promise.resolve() : Promise.race([waitFor(head).then(() => undefined), stuckOnce]);
  return { waitFor, ready, ...readouts(store, model, category, state), stop: following.stop };
};
