import { Category, Checkpoint, EventStore, StoredEvent, Subscription } from '../event-store/port';
import { Logger } from '../kernel/logger';
import { ReadModelUnavailable } from './read-model';
import { Projected, ProjectionState, reached } from './projection-state';

/** How often the runner checks that its read-model file is sound and still the one at its path. */
const HEALTH_INTERVAL_MS = 1000;

/** What following the store needs: where from and into what, the shared state, and how to report. */
export interface FollowContext {
  store: EventStore;
  model: Projected;
  log: Logger;
  category: Category;
  state: ProjectionState;
  /** Answers the writes waiting for positions now applied. */
  settle: () => void;
  fail: (e: unknown) => void;
}

/**
 * The file's own checkpoint ahead of this runner's: another process on the same read model
 * applied those events (API_PROCESSES > 1), so they are not read again here, and the writes
 * waiting for them are answered.
 */
const appliedElsewhere = ({ model, state, settle }: FollowContext): Checkpoint => {
  try {
    const stored = model.checkpoint();
    if (stored !== 'start' && (state.checkpoint === 'start' || stored > state.checkpoint)) {
      state.checkpoint = stored;
      state.caughtUpAt = Date.now();
      state.failure = undefined; // what this runner failed on, if anything, another process applied
      settle();
    }
  } catch {
    /* a damaged file: the health check rebuilds it */
  }
  return state.checkpoint;
};

/** Applies a batch the store delivered; one another process on the file applied meanwhile is no failure. */
const applyBatch =
  ({ model, state, settle }: FollowContext, whileRecovering: () => void) =>
  async (events: readonly StoredEvent[]) => {
    try {
      state.checkpoint = model.apply(events);
      state.failure = undefined;
      state.storeAway = undefined;
      state.caughtUpAt = Date.now(); // progress: the lag counts from the last batch applied
      if (model.recovering()) whileRecovering();
    } catch (e) {
      if (!(e instanceof ReadModelUnavailable)) {
        state.checkpoint = model.checkpoint();
        if (reached(state.checkpoint, events[events.length - 1]!.position)) {
          state.failure = undefined;
          return;
        }
      }
      throw e;
    } finally {
      settle();
    }
  };

/**
 * The model's own checkpoint behind ours: another runner on the same file (the trigger and the
 * signal projections share one) rebuilt it, so this one follows again from there.
 */
const wentBack = ({ model, state }: FollowContext) => {
  try {
    const stored = model.checkpoint();
    return state.checkpoint !== 'start' && (stored === 'start' || stored < state.checkpoint);
  } catch {
    return false;
  }
};

/**
 * After a rebuild (by this runner or another on the same file), reads of this part answer 503
 * until the file itself has caught up with the store: its stored checkpoint, not this runner's.
 */
const endRecovery = async ({ store, model, category }: FollowContext) => {
  const head = await store.headPosition(category);
  try {
    const stored = model.checkpoint();
    if (head === 'start' || reached(stored, head)) model.recovered();
  } catch {
    /* damaged again: the health check rebuilds */
  }
};

/**
 * Follows the store from the state's checkpoint into the model, live. A damaged read model is
 * moved aside and rebuilt from the first event; one rebuilt by another runner is followed again.
 */
export const followStore = (ctx: FollowContext) => {
  const { store, model, log, category, state } = ctx;
  let stopped = false;
  let rebuilding: Promise<void> | undefined;
  const endRecoveryUnlessRebuilding = () => {
    if (model.recovering() && !rebuilding) void endRecovery(ctx).catch(() => undefined);
  };
  const follow = (from: Checkpoint): Subscription =>
    store.subscribe(
      from,
      applyBatch(ctx, endRecoveryUnlessRebuilding),
      (e) => {
        ctx.fail(e);
        if (e instanceof ReadModelUnavailable) void rebuild();
      },
      { category, resumeAfter: () => appliedElsewhere(ctx) },
    );
  let subscription = follow(state.checkpoint);

  // Close the subscription, move the damaged file aside, start again from the first event.
  const rebuild = (reopen = true) =>
    (rebuilding ??= (async () => {
      await subscription.close();
      if (stopped) return;
      try {
        if (reopen) model.rebuild();
        state.checkpoint = model.checkpoint();
        state.failure = undefined; // now simply behind: caughtUp() says when it has caught up again
        log.warn('read model reopened; catching up from its checkpoint', { checkpoint: String(state.checkpoint) });
      } catch (e) {
        ctx.fail(e);
      }
      subscription = follow(state.checkpoint);
    })().finally(() => {
      rebuilding = undefined;
    }));
  const health = setInterval(() => {
    if (model.fault() !== undefined) void rebuild();
    else if (wentBack(ctx)) void rebuild(false);
    else endRecoveryUnlessRebuilding();
  }, HEALTH_INTERVAL_MS);
  health.unref();

  return {
    stop: async () => {
      stopped = true;
      clearInterval(health);
      await rebuilding;
      await subscription.close();
    },
  };
};
