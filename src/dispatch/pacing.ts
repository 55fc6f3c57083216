/**
 * Deliveries at the pace a destination can take: the limit the config sets on a destination, the
 * `paced` signal a waiting delivery hears, and its pace activities' arguments and answers
 * (kept in our store, src/pacing/). Pure: the workflow bundle imports it.
 */
import { defineSignal } from '@temporalio/workflow';

/**
 * A destination's limit, shared by every trigger and host that delivers to it: at most
 * `maxPerSecond` attempts a second (with up to `burst` at once after a quiet spell) and at most
 * `maxInFlight` attempts under way at once. Either may be absent, not both.
 */
export interface PaceLimit {
  maxPerSecond?: number;
  burst: number;
  maxInFlight?: number;
}

/** A destination's limit and its key (`webhook:<name>`, `broker:<name>`): the stream its pace is kept in. */
export interface Pace extends PaceLimit {
  key: string;
}

/** Why an action waits for its destination: its limit is reached, or its receiver asked for a pause. */
export type WaitReason = 'rate_limited' | 'paused_by_receiver';

/** What an action waiting for its destination shows: why, and until when when that is known (ISO time). */
export interface PaceWait {
  reason: WaitReason;
  until?: string;
}

/** To a delivery waiting for a place under `max_in_flight`: the holder id its place was given to. */
export const pacedSignal = defineSignal<[string]>('paced');

/** A delivery's place under its destination's limit: its key, and who holds an in-flight place. */
export interface PaceArgs {
  key: string;
  /** This attempt's in-flight place: `<delivery id>#<n>`, unique within the delivery. */
  holderId: string;
  workflowId: string;
  /** How long a place may be held before others may take it (a dead worker's place comes back). */
  leaseMs: number;
}

/**
 * The rate stage's answer: the slot reserved (in the destination's own time: its real time moves
 * when a receiver pauses it) and when it falls now, epoch ms.
 */
export interface RateSlot {
  slot: number;
  at: number;
  /** How long from the activity's own clock until then (the workflow's clock is its task's start: behind). */
  waitMs: number;
  paused: boolean;
}

/**
 * A wait this short is left to the check at sending (SEND_WAIT_MAX_SECS) rather than a timer:
 * a timer costs a workflow task and fires late by a varying amount.
 */
export const TIMER_MIN_MS = 1000;

/** The in-flight stage's answer: the place is held now, or the delivery waits for the `paced` signal. */
export type Place = { held: true } | { held: false; paused: boolean };

/** What an attempt of a paced action asks of its destination's pace when it ends. */
export interface PacedAttempt {
  key: string;
  /** Its in-flight place, given back when the attempt ends (none without `max_in_flight`). */
  holderId?: string;
  /** The slot at sending an earlier try reserved and handed back (too far off to wait for), epoch ms. */
  sendAt?: number;
}

/**
 * How long a paced attempt may wait at the moment of sending for the rate's strict check (its
 * activity's time allows it beyond `timeout_secs`); past it, the attempt goes back to its
 * workflow to wait there, not counted.
 */
export const SEND_WAIT_MAX_SECS = 2;
