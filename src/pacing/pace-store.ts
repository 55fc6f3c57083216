import { EventStore, WrongExpectedRevision } from '../event-store/port';
import type { PaceLimit } from '../dispatch/pacing';
import { EMPTY, FoundWaiter, PaceState, Waiter } from './pace-state';

/** Every event of a pace stream holds the whole state after it, and the waiter it queued, if any. */
export const PACE_CHANGED = 'PaceChanged';
/** The stream of a destination's pace: `paced-<key>`. */
export const paceStreamOf = (key: string) => `paced-${key}`;

/** A stream is cut once this many events lie before what is still needed (each cut is a write). */
const CUT_AFTER = 64;
/** Waiters read per page while looking for the lowest tickets. */
const WAITER_PAGE = 64;

const num = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);

/** A state as stored; anything missing reads as the empty state's value (a new field, a cut stream). */
const stateOf = (data: Record<string, unknown>): PaceState => {
  const s = (data.state ?? {}) as Record<string, unknown>;
  const holders = Array.isArray(s.holders)
    ? s.holders.flatMap((h: { id?: unknown; until?: unknown }) => (typeof h?.id === 'string' ? [{ id: h.id, until: num(h.until, 0) }] : []))
    : [];
  return {
    tat: num(s.tat, EMPTY.tat),
    shift: num(s.shift, EMPTY.shift),
    pausedUntil: num(s.pausedUntil, EMPTY.pausedUntil),
    front: num(s.front, EMPTY.front),
    sendTat: num(s.sendTat, EMPTY.sendTat),
    holders,
    nextTicket: num(s.nextTicket, EMPTY.nextTicket),
    granted: num(s.granted, EMPTY.granted),
    scanFrom: num(s.scanFrom, EMPTY.scanFrom),
  };
};

const waiterOf = (data: Record<string, unknown>): Waiter | undefined => {
  const w = data.waiter as Partial<Waiter> | undefined;
  return w && typeof w.ticket === 'number' && typeof w.holderId === 'string' && typeof w.workflowId === 'string'
    ? { ticket: w.ticket, holderId: w.holderId, workflowId: w.workflowId, leaseMs: num(w.leaseMs, 60_000), since: num(w.since, 0) }
    : undefined;
};

/** A destination's pace as read: its state and the revision it was read at (none for a new stream). */
export interface Read {
  state: PaceState;
  revision: bigint | undefined;
}

/** What a change decides from the state it read: the new state (none: nothing to write), the waiter it queued, its answer. */
export interface Change<A> {
  state?: PaceState;
  waiter?: Waiter;
  answer: A;
}

/**
 * The paces of every destination in the event store: one stream each, every write expecting the
 * revision it read, so hosts sharing the store (PostgreSQL) serialise on it; a lost race reads
 * again and decides again.
 */
export const createPaceStore = (store: Pick<EventStore, 'append' | 'read' | 'truncateBefore'>, now: () => number = Date.now) => {
  const read = async (key: string): Promise<Read> => {
    const [last] = await store.read(paceStreamOf(key), { direction: 'backwards', maxCount: 1 });
    return last ? { state: stateOf(last.data), revision: last.revision } : { state: EMPTY, revision: undefined };
  };

  const cut = async (key: string, state: PaceState, revision: bigint) => {
    const keepFrom = BigInt(Math.min(state.scanFrom, Number(revision)));
    if (revision % BigInt(CUT_AFTER) === 0n && keepFrom > 0n)
      await store.truncateBefore(paceStreamOf(key), keepFrom).catch(() => undefined);
  };

  /** Reads, decides and writes until the write lands on the revision it read. */
  const change = async <A>(key: string, decide: (read: Read, now: number) => Promise<Change<A>> | Change<A>): Promise<A> => {
    for (;;) {
      const current = await read(key);
      const decided = await decide(current, now());
      if (!decided.state) return decided.answer;
      try {
        const written = await store.append(
          paceStreamOf(key),
          [{ type: PACE_CHANGED, data: { state: decided.state, ...(decided.waiter ? { waiter: decided.waiter } : {}) }, metadata: {} }],
          current.revision ?? 'no_stream',
        );
        await cut(key, decided.state, written.nextRevision - 1n);
        return decided.answer;
      } catch (e) {
        if (!(e instanceof WrongExpectedRevision)) throw e;
      }
    }
  };

  /**
   * The waiters from the state's `scanFrom` on, lowest ticket first, up to `count` of them not
   * yet given a place; and the revision after the last event read.
   */
  const waitersAfter = async (key: string, state: PaceState, count: number): Promise<{ waiters: FoundWaiter[]; scanned: number }> => {
    const waiters: FoundWaiter[] = [];
    let from = state.scanFrom;
    while (waiters.length < count) {
      const page = await store.read(paceStreamOf(key), { fromRevision: BigInt(from), maxCount: WAITER_PAGE });
      for (const e of page) {
        const w = waiterOf(e.data);
        from = Number(e.revision) + 1;
        if (w && w.ticket >= state.granted) waiters.push({ ...w, revision: Number(e.revision) });
        if (waiters.length >= count) return { waiters, scanned: from };
      }
      if (page.length < WAITER_PAGE) break;
    }
    return { waiters, scanned: from };
  };

  return { read, change, waitersAfter };
};

export type PaceStore = ReturnType<typeof createPaceStore>;
export type { PaceLimit };
