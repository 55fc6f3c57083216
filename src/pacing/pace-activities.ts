import type { Client } from '@temporalio/client';
import type { EventStore } from '../event-store/port';
import type { Logger } from '../kernel/logger';
import { PaceArgs, PacedAttempt, pacedSignal, PaceLimit, Place, RateSlot } from '../dispatch/pacing';
import { workflowNotFound } from '../temporal/give-turn';
import {
  ask,
  backlogOf,
  grant,
  holds,
  sendSlot,
  noneWaiting,
  PaceState,
  pause,
  release,
  reserve,
  sameState,
  slotAt,
  Waiter,
} from './pace-state';
import { noPaceMetrics, PaceMetrics } from '../observability/pace-metrics';
import { createPaceStore, Read } from './pace-store';

export interface PaceDeps {
  readonly store: EventStore;
  /** A destination's limit now, by key; undefined once the config no longer limits it (it then goes at once). */
  readonly limitOf: (key: string) => PaceLimit | undefined;
  readonly log: Logger;
  /** The client that tells a waiting delivery its place (the worker's own, in an activity). */
  readonly client: () => Client;
  readonly metrics?: PaceMetrics;
  readonly now?: () => number;
  /** Waits in an attempt for its slot at sending (the worker's: it ends early, rejecting, when the attempt is cancelled). */
  readonly sleep?: (ms: number) => Promise<unknown>;
}

/**
 * A destination's pace, as the dispatch workflow's local activities and the end of each paced
 * attempt use it (pace-state.ts says how the pace works). Each is one read and at most one write
 * of the destination's stream.
 */
const slotAnswer = (slot: number, at: number, now: number, state: PaceState): RateSlot => ({
  slot,
  at,
  waitMs: Math.max(0, at - now),
  paused: state.pausedUntil > now,
});

/**
 * How far ahead of its write a slot of the moment of sending is set: the write lands first (an
 * fsync, a round trip to PostgreSQL), and the attempt sends at the slot's time.
 */
const SEND_LEAD_MS = 100;
/**
 * A slot at sending missed by more than half an interval (or this, without a rate: a pause's
 * end) is not used: sent late, it would crowd the slot after it; the attempt reserves another.
 */
const SEND_MISSED_MS = 100;

/** An attempt held back at sending: until when, and whether that time is a slot reserved for it (else: a pause's end). */
export interface Held {
  until: number;
  reserved: boolean;
}

export const paceActivities = (deps: PaceDeps) => {
  const paces = createPaceStore(deps.store, deps.now);
  const metrics = deps.metrics ?? noPaceMetrics;
  /** The pauses this process's attempts were answered, by destination: one entry per configured limit at most. */
  const pausedHere = new Map<string, number>();
  const seen = (key: string, state: PaceState, limit: PaceLimit, now: number) => metrics.backlog(key, backlogOf(state, now, limit));

  /** Gives free places to the waiters first in line (read before the write, again if it lost a race). */
  const granting = async (key: string, limit: PaceLimit, read: Read, now: number) => {
    const { state } = read;
    if (limit.maxInFlight === undefined || noneWaiting(state)) return { state, given: [] as Waiter[] };
    const { waiters, scanned } = await paces.waitersAfter(key, read, limit.maxInFlight);
    return grant(state, now, limit, waiters, scanned);
  };

  /** Tells each waiter given a place; one whose dispatch has closed keeps it until its lease ends. */
  const tell = async (key: string, given: readonly Waiter[]) => {
    const now = deps.now?.() ?? Date.now();
    for (const w of given) metrics.waited(key, (now - w.since) / 1000);
    await Promise.all(
      given.map((w) =>
        deps
          .client()
          .workflow.getHandle(w.workflowId)
          .signal(pacedSignal, w.holderId)
          .catch((e: unknown) => {
            if (!workflowNotFound(e))
              deps.log.warn('pace: a waiting delivery was not told its place', { workflow_id: w.workflowId, error: String(e) });
          }),
      ),
    );
  };

  const reserveSlot = async (key: string, first: boolean): Promise<RateSlot | undefined> => {
    const limit = deps.limitOf(key);
    if (!limit) return undefined;
    return paces.change(key, ({ state }, now) => {
      if (!limit.maxPerSecond) return { answer: slotAnswer(0, Math.max(now, state.pausedUntil), now, state) };
      const r = reserve(state, now, limit, first);
      const at = slotAt(r.state, r.slot);
      metrics.waited(key, (at - now) / 1000);
      seen(key, r.state, limit, now);
      return { state: r.state, answer: slotAnswer(r.slot, at, now, r.state) };
    });
  };

  return {
    /** Reserves the attempt's slot under `max_per_second` (`first`: a retry goes before the schedule's end). */
    reserveSlot: ({ key, first }: { key: string; first: boolean }): Promise<RateSlot | undefined> => reserveSlot(key, first),
    /** When a reserved slot falls now (a pause since moved it), after its timer fired. */
    slotNow: async ({ key, slot }: { key: string; slot: number }): Promise<RateSlot> => {
      const { state } = await paces.read(key);
      const now = deps.now?.() ?? Date.now();
      return slotAnswer(slot, slotAt(state, slot), now, state);
    },
    /**
     * Takes a place under `max_in_flight`: at once when one is free and nobody waits before it;
     * else queued, to be told by the `paced` signal (`recheck`: a waiter's occasional look, which
     * also gives places freed by leases that ended).
     */
    takePlace: async (args: PaceArgs & { recheck?: boolean }): Promise<Place> => {
      const limit = deps.limitOf(args.key);
      if (limit?.maxInFlight === undefined) return { held: true };
      let told: Waiter[] = [];
      const place = await paces.change<Place>(args.key, async (current, now) => {
        const granted = await granting(args.key, limit, current, now);
        told = granted.given;
        const mine = granted.given.some((w) => w.holderId === args.holderId) || holds(granted.state, args.holderId);
        if (mine || args.recheck) {
          const state = granted.given.length > 0 ? granted.state : undefined;
          return { state, answer: mine ? { held: true } : { held: false, paused: granted.state.pausedUntil > now } };
        }
        const asked = ask(granted.state, now, limit, args.holderId, args.leaseMs);
        if (asked.held) return { state: asked.state, answer: { held: true } };
        const waiter = { ticket: asked.ticket, holderId: args.holderId, workflowId: args.workflowId, leaseMs: args.leaseMs, since: now };
        seen(args.key, asked.state, limit, now);
        return { state: asked.state, waiter, answer: { held: false, paused: asked.state.pausedUntil > now } };
      });
      await tell(
        args.key,
        told.filter((w) => w.holderId !== args.holderId),
      );
      return place;
    },
    /**
     * At the moment of sending: the strict slot of the rate and of a pause, which the schedule's
     * slots only approach (a timer fires late by a varying amount, and slots missed while no
     * worker ran fall due together). Waits here for it when it is at most `maxWaitMs` away, and
     * answers undefined: send now. Else it answers the slot, reserved, for the workflow to wait
     * for and give back (`sendAt`); or, when a pause came meanwhile, when it ends.
     */
    sendNow: async (key: string, maxWaitMs: number, sendAt?: number): Promise<Held | undefined> => {
      const limit = deps.limitOf(key);
      if (!limit) return undefined;
      const clock = () => deps.now?.() ?? Date.now();
      const sleep = deps.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
      // Sent later than this after its slot, it would crowd the slot after it: it takes another.
      const lateMs = limit.maxPerSecond ? 500 / limit.maxPerSecond : SEND_MISSED_MS;
      const reserveAt = () =>
        paces.change(key, ({ state }, now) => {
          const r = sendSlot(state, now, limit, SEND_LEAD_MS);
          return { ...(r.state === state ? {} : { state: r.state }), answer: r.at };
        });
      // A slot reserved by an earlier try is kept, unless it was missed.
      let at = sendAt !== undefined && sendAt > clock() - lateMs ? sendAt : undefined;
      for (;;) {
        const heldHere = pausedHere.get(key) ?? 0;
        if (heldHere > clock()) return { until: heldHere, reserved: false };
        at ??= await reserveAt();
        if (at - clock() > maxWaitMs) return { until: at, reserved: true };
        if (at > clock()) await sleep(at - clock());
        if (clock() - at <= lateMs) break;
        at = undefined;
      }
      // A receiver of this process answered a pause meanwhile: the slot is given up.
      const paused = pausedHere.get(key) ?? 0;
      return paused > clock() ? { until: paused, reserved: false } : undefined;
    },
    /**
     * A paced attempt ended: its place is free (given to the next waiter), and a receiver that
     * asked for a pause (`pausedUntil`) pauses the whole destination. `sent`: a request left
     * (an attempt held back at sending is not counted as one).
     */
    endAttempt: async (paced: PacedAttempt, { sent, pausedUntil }: { sent: boolean; pausedUntil?: number }): Promise<void> => {
      const limit = deps.limitOf(paced.key);
      if (!limit) return;
      // Known here at once: this process's next attempts wait without waiting for the write.
      if (pausedUntil !== undefined) pausedHere.set(paced.key, Math.max(pausedHere.get(paced.key) ?? 0, pausedUntil));
      if (sent) metrics.attempted(paced.key);
      if (paced.holderId === undefined && pausedUntil === undefined) return;
      let told: Waiter[] = [];
      await paces.change(paced.key, async (current, now) => {
        let state = current.state;
        if (pausedUntil !== undefined) state = pause(state, now, pausedUntil);
        if (paced.holderId !== undefined) state = release(state, paced.holderId);
        const granted = await granting(paced.key, limit, { ...current, state }, now);
        told = granted.given;
        seen(paced.key, granted.state, limit, now);
        return { state: sameState(granted.state, current.state) ? undefined : granted.state, answer: undefined };
      });
      await tell(paced.key, told);
    },
  };
};

export type PaceActivities = ReturnType<typeof paceActivities>;
