/**
 * What `GET /api/destinations/limits` shows of each limit the config sets: the limit in the
 * config's words, and the destination's pace now, read from its stream (one read each).
 */
import type { EventStore } from '../event-store/port';
import type { ActionKind } from '../dispatch/types';
import type { PaceLimit } from '../dispatch/pacing';
import { destinationLimits, DestinationSettings } from '../destinations/registry';
import { LimitView, limitViewOf } from '../destinations/port/limit-view';
import { createPaceStore } from './pace-store';
import { backlogOf, PaceState } from './pace-state';

export interface DestinationPace extends LimitView {
  kind: ActionKind;
  /** What the limit covers: a webhook_limits entry's url_prefix, or the broker's name. */
  matches: string;
  /** Deliveries waiting for the destination now (backlogOf). */
  backlog: number;
  /** In-flight places held under a lease not yet ended (a dead worker's place is not counted). */
  in_flight: number;
  /** ISO time until which the receiver asked for no request; only while that is still ahead. */
  paused_until?: string;
}

const paceNow = (state: PaceState, now: number, limit: PaceLimit) => ({
  backlog: backlogOf(state, now, limit),
  in_flight: state.holders.filter((h) => h.until > now).length,
  ...(state.pausedUntil > now ? { paused_until: new Date(state.pausedUntil).toISOString() } : {}),
});

/** Every configured limit with its pace at `now` (epoch ms), in the registry's order. */
export const destinationPaces = async (
  store: Pick<EventStore, 'append' | 'read' | 'truncateBefore'>,
  settings: DestinationSettings,
  now: number,
): Promise<DestinationPace[]> => {
  const paces = createPaceStore(store);
  return Promise.all(
    destinationLimits(settings).map(async ({ key, kind, limit, matches }) => {
      const { state } = await paces.read(key);
      return { ...limitViewOf(key, limit), kind, matches, ...paceNow(state, now, limit) };
    }),
  );
};
