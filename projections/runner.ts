import { EventStore, Subscription } from '../src/event-store/port';
import { Logger } from '../src/logger';
import { ReadModel } from './read-model';

export interface ProjectionRunner {
  /** Resolves once the read model holds every event up to `position`. */
  waitFor(position: bigint): Promise<void>;
  /** True when the read model has applied the store's newest event. */
  caughtUp(): Promise<boolean>;
  /** Resolves when the read model has caught up with the store as it was at start. */
  ready: Promise<void>;
  stop(): Promise<void>;
}

const reached = (checkpoint: bigint | 'start', position: bigint) => checkpoint !== 'start' && checkpoint >= position;

/**
 * Keeps the read model in step with the store: catches up from the stored checkpoint at
 * start, then follows live. Several processes may run one on the same read-model file.
 */
export const startProjection = async (store: EventStore, model: ReadModel, log: Logger): Promise<ProjectionRunner> => {
  const head = await store.headPosition();
  const stored = model.checkpoint();
  if (stored !== 'start' && (head === 'start' || stored > head)) {
    log.warn('read model is ahead of the event store (store was reset?): rebuilding it');
    model.reset();
  }
  let checkpoint = model.checkpoint();
  const waiters = new Set<{ position: bigint; resolve: () => void }>();
  const settle = () => {
    for (const w of waiters) if (reached(checkpoint, w.position)) { waiters.delete(w); w.resolve(); }
  };
  const subscription: Subscription = store.subscribe(checkpoint, async (events) => {
    checkpoint = model.apply(events);
    settle();
  }, (e) => log.error('projection batch failed; retrying', { error: String(e) }));

  const waitFor = (position: bigint) => new Promise<void>((resolve) => {
    if (reached(checkpoint, position)) return resolve();
    waiters.add({ position, resolve });
  });
  const ready = head === 'start' ? Promise.resolve() : waitFor(head);

  return {
    waitFor,
    ready,
    caughtUp: async () => {
      const now = await store.headPosition();
      return now === 'start' || reached(checkpoint, now);
    },
    stop: async () => { await subscription.close(); },
  };
};
