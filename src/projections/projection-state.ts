import { Category, Checkpoint, StoreUnavailable } from '../event-store/port';
import { Logger } from '../kernel/logger';
import { ReadModel } from './read-model';

/** What a runner keeps in step: the trigger read model, or its signal index (signalProjectionOf). */
export type Projected = Pick<ReadModel, 'checkpoint' | 'apply' | 'reset' | 'fault' | 'rebuild' | 'recovering' | 'recovered'>;

/** What a runner knows of its read model, shared by its parts. */
export interface ProjectionState {
  /** The position this runner has applied up to (or seen another process apply). */
  checkpoint: Checkpoint;
  /** When it last applied a batch or was seen caught up: the lag counts from there. */
  caughtUpAt: number;
  /** Why it is stuck: an event it cannot apply, a damaged read model. */
  failure?: string;
  /** Why the store cannot be read: not a stuck projection, it goes on once reads succeed again. */
  storeAway?: string;
}

export const reached = (checkpoint: Checkpoint, position: bigint) => checkpoint !== 'start' && checkpoint >= position;

/**
 * Records why the projection cannot go on, logging each new reason once. `stuckOnce` resolves at
 * the first: start-up then stops waiting for a catch-up that is not coming.
 */
export const failureRecorder = (state: ProjectionState, log: Logger, category: Category) => {
  let stuck: () => void = () => undefined;
  const stuckOnce = new Promise<void>((resolve) => {
    stuck = resolve;
  });
  const fail = (e: unknown) => {
    const reason = e instanceof Error ? e.message : String(e);
    if (e instanceof StoreUnavailable) {
      if (state.storeAway === undefined) log.warn('projection waits for the event store', { category, error: reason });
      state.storeAway = reason;
    } else {
      if (reason !== state.failure) log.error('projection stopped; retrying', { error: reason });
      state.failure = reason;
    }
    stuck();
  };
  return { fail, stuckOnce };
};
