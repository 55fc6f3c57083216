/**
 * One destination's pace, as data: pure, so every host decides the same from the same state (the
 * store, pace-store.ts, keeps it in one stream per destination and serialises the writes).
 *
 * - The rate is a GCRA with reservations: each attempt reserves the next slot of the
 *   destination's schedule and sleeps until it (a durable timer: no worker slot, no polling),
 *   so deliveries go in the order they reserved, `1000 / max_per_second` ms apart, with up to
 *   `burst` at once after a quiet spell. Slots are kept in the destination's own time; `shift`
 *   maps it to real time, so a pause moves every slot not yet reached, in order.
 * - `max_in_flight` is a list of holders with leases (a dead worker's place comes back when its
 *   lease ends) and a queue of tickets: a waiter's ticket is written in the event that queued
 *   it, and a place that frees is given to the lowest ticket, which is told by a signal.
 */
import type { PaceLimit } from '../dispatch/pacing';

export interface Holder {
  id: string;
  /** Epoch ms after which the place is free again. */
  until: number;
}

/** A delivery waiting for an in-flight place, as its queue event holds it. */
export interface Waiter {
  ticket: number;
  holderId: string;
  workflowId: string;
  leaseMs: number;
  /** Epoch ms it was queued at (its wait, once it has a place). */
  since: number;
}

export interface PaceState {
  /** The rate's theoretical arrival time, in the destination's own time (ms). */
  tat: number;
  /** Real time = own time + shift: grows by each pause and each retry put first. */
  shift: number;
  /** Epoch ms until which the receiver asked for no request. */
  pausedUntil: number;
  /** Epoch ms of the last slot put first (the next one put first follows it). */
  front: number;
  /** The rate's theoretical arrival time at the moment of sending, in real time (ms). */
  sendTat: number;
  holders: Holder[];
  /** The next waiter's ticket; tickets below `granted` have been given a place (or passed). */
  nextTicket: number;
  granted: number;
  /** The revision from which the waiters not yet given a place are read (the stream may be cut before it). */
  scanFrom: number;
}

export const EMPTY: PaceState = {
  tat: 0,
  shift: 0,
  pausedUntil: 0,
  front: 0,
  sendTat: 0,
  holders: [],
  nextTicket: 0,
  granted: 0,
  scanFrom: 0,
};

const intervalOf = (limit: PaceLimit) => (limit.maxPerSecond ? 1000 / limit.maxPerSecond : 0);

/**
 * Reserves the next slot (rate stage). `first`: a retry or a delivery a receiver paused takes
 * the first free slot from now, after any put first before it (every later slot moves back by
 * one interval), rather than the schedule's end. Returns the slot in own time and the new state.
 */
export const reserve = (s: PaceState, now: number, limit: PaceLimit, first: boolean): { state: PaceState; slot: number } => {
  const interval = intervalOf(limit);
  const start = Math.max(now, s.pausedUntil);
  const realTat = s.tat + s.shift;
  const firstAt = Math.max(start, s.front + interval);
  if (first && realTat > firstAt) {
    const shift = s.shift + interval;
    return { state: { ...s, shift, front: firstAt }, slot: firstAt - shift };
  }
  const tolerance = (limit.burst - 1) * interval;
  const before = Math.max(realTat, start);
  const at = Math.max(start, before - tolerance);
  return { state: { ...s, tat: before + interval - s.shift }, slot: at - s.shift };
};

/** When a reserved slot falls now (epoch ms): never during a pause. */
export const slotAt = (s: PaceState, slot: number) => Math.max(slot + s.shift, s.pausedUntil);

/**
 * The slot of the moment of sending (a GCRA with reservations, in real time, kept apart from
 * the schedule above): at least `leadMs` ahead, so that the write which reserves it lands before
 * it and the attempt sends at that time, not whenever its write happened to land; never during
 * a pause. Slots space deliveries ahead of time; this holds the limit when their timers fire
 * late or together.
 */
export const sendSlot = (s: PaceState, now: number, limit: PaceLimit, leadMs: number): { state: PaceState; at: number } => {
  const start = Math.max(now + leadMs, s.pausedUntil);
  const interval = intervalOf(limit);
  if (interval === 0) return { state: s, at: start };
  const before = Math.max(s.sendTat, start);
  const at = Math.max(start, before - (limit.burst - 1) * interval);
  return { state: { ...s, sendTat: before + interval }, at };
};

/** The receiver asked for no request until `until`: every slot not yet reached moves back by the pause. */
export const pause = (s: PaceState, now: number, until: number): PaceState => {
  if (until <= s.pausedUntil || until <= now) return s;
  return { ...s, shift: s.shift + (until - Math.max(now, s.pausedUntil)), pausedUntil: until };
};

/** The holders whose lease has not ended. */
const live = (s: PaceState, now: number): PaceState => {
  const holders = s.holders.filter((h) => h.until > now);
  return holders.length === s.holders.length ? s : { ...s, holders };
};

export const holds = (s: PaceState, holderId: string) => s.holders.some((h) => h.id === holderId);

/** Places free under `max_in_flight` now (none during a pause: a place given then would be sent at once). */
export const freePlaces = (s: PaceState, now: number, limit: PaceLimit) =>
  limit.maxInFlight === undefined ? Infinity : s.pausedUntil > now ? 0 : Math.max(0, limit.maxInFlight - live(s, now).holders.length);

/** A waiter as read, with the revision of the event that queued it. */
export type FoundWaiter = Waiter & { revision: number };

/**
 * Gives places to `waiters` (the lowest tickets not yet given one, in order, read up to revision
 * `scanned`) while places are free; the next scan starts at the first waiter left.
 */
export const grant = (
  s: PaceState,
  now: number,
  limit: PaceLimit,
  waiters: readonly FoundWaiter[],
  scanned: number,
): { state: PaceState; given: Waiter[] } => {
  let state = live(s, now);
  const given: Waiter[] = [];
  let left: number | undefined;
  for (const w of waiters) {
    // A ticket below the first one read was lost (its event cut): never wait for it.
    if (w.ticket > state.granted && given.length === 0) state = { ...state, granted: w.ticket };
    if (w.ticket !== state.granted || freePlaces(state, now, limit) === 0) {
      left = w.revision;
      break;
    }
    given.push(w);
    // A waiter queued twice (its local activity ran again) holds one place.
    const holders = holds(state, w.holderId) ? state.holders : [...state.holders, { id: w.holderId, until: now + w.leaseMs }];
    state = { ...state, granted: state.granted + 1, holders };
  }
  return { state: { ...state, scanFrom: Math.max(state.scanFrom, left ?? scanned) }, given };
};

/** Whether every waiter has been given a place. */
export const noneWaiting = (s: PaceState) => s.granted >= s.nextTicket;

/**
 * An attempt asks for a place: held at once when one is free and nobody waits before it, else
 * queued with the next ticket (the caller writes the waiter in the same event).
 */
export const ask = (
  s: PaceState,
  now: number,
  limit: PaceLimit,
  holderId: string,
  leaseMs: number,
): { state: PaceState; held: true } | { state: PaceState; held: false; ticket: number } => {
  const state = live(s, now);
  if (holds(state, holderId)) return { state, held: true };
  if (noneWaiting(state) && freePlaces(state, now, limit) > 0)
    return { state: { ...state, holders: [...state.holders, { id: holderId, until: now + leaseMs }] }, held: true };
  return { state: { ...state, nextTicket: state.nextTicket + 1 }, held: false, ticket: state.nextTicket };
};

/** The attempt ended: its place is free. */
export const release = (s: PaceState, holderId: string): PaceState =>
  holds(s, holderId) ? { ...s, holders: s.holders.filter((h) => h.id !== holderId) } : s;

/** Whether a change left the state as it was (nothing to write). */
export const sameState = (a: PaceState, b: PaceState) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Deliveries waiting now: slots reserved ahead of `now` under the rate (of the schedule, or at
 * sending, where the deliveries whose slots fell while no worker ran wait), and waiters without a place.
 */
export const backlogOf = (s: PaceState, now: number, limit: PaceLimit) => {
  const interval = intervalOf(limit);
  const reservedUntil = Math.max(s.tat + s.shift, s.sendTat);
  const ahead = interval > 0 ? Math.max(0, Math.ceil((reservedUntil - now) / interval) - limit.burst) : 0;
  return ahead + Math.max(0, s.nextTicket - s.granted);
};
