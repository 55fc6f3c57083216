import type { Checkpoint, EventStore } from '../../event-store/port';
import type { Logger } from '../../kernel/logger';
import { Lease, leaseEnds, renewLease } from '../../model/signals/relay-lease';

const CHECKPOINT_SAVE_MS = 200;

/** What the relay's lease loop and its renewals share. */
export interface LeaseState {
  stopped: boolean;
  /** Held while defined; a renewal that finds it taken clears it. */
  lease?: Lease;
  /** How far the relay got: saved with each renewal. */
  checkpoint: Checkpoint;
}

/**
 * Renews the lease, one renewal after another, each also saving the checkpoint (on stop, with no
 * time left, so another relay takes over at once). A moved checkpoint is saved at most
 * CHECKPOINT_SAVE_MS after it moves (a save just made is followed by one more), so every process
 * sees `queued` end and the backlog shrink that soon, not at the next renewal.
 */
export const leaseRenewals = (store: EventStore, log: Logger, state: LeaseState, leaseMs: number, lost: () => void) => {
  let renewing = Promise.resolve();
  let renewedAt = 0;
  let saveTimer: NodeJS.Timeout | undefined;
  const renew = () =>
    (renewing = renewing.then(async () => {
      if (!state.lease) return;
      renewedAt = Date.now();
      try {
        state.lease = await renewLease(store, state.lease, state.checkpoint, state.stopped ? 0 : leaseMs);
      } catch (e) {
        log.warn('could not renew the relay lease', { error: String(e) });
      }
      if (!state.lease) lost();
    }));
  const moved = (to: Checkpoint) => {
    state.checkpoint = to;
    if (saveTimer) return;
    saveTimer = setTimeout(
      () => {
        saveTimer = undefined;
        void renew();
      },
      Math.max(0, CHECKPOINT_SAVE_MS - (Date.now() - renewedAt)),
    );
  };
  /** The last save, once the relay lets go: no timed save is left behind. */
  const finalSave = () => {
    clearTimeout(saveTimer);
    saveTimer = undefined;
    return renew();
  };
  return { renew, moved, finalSave };
};

/**
 * How long a relay without the lease waits before trying again: until the holder's lease ends
 * (a holder that died is replaced within its lease time, not up to half a lease later), at
 * most half a lease (a holder that stopped cleanly gives it up at once).
 */
export const untilLeaseEnds = async (store: EventStore, leaseMs: number) => {
  const ends = await leaseEnds(store).catch(() => undefined);
  return ends === undefined ? leaseMs / 2 : Math.min(leaseMs / 2, Math.max(20, ends - Date.now() + 20));
};
