import { EventStore, WrongExpectedRevision } from '../event-store/port';
import type { PaceLimit } from '../dispatch/pacing';
import { EMPTY, FoundWaiter, noneWaiting, PaceState, Waiter } from './pace-state';

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

const waiterOf = (w: Partial<Waiter> | undefined): Waiter | undefined =>
  w && typeof w.ticket === 'number' && typeof w.holderId === 'string' && typeof w.workflowId === 'string'
    ? { ticket: w.ticket, holderId: w.holderId, workflowId: w.workflowId, leaseMs: num(w.leaseMs, 60_000), since: num(w.since, 0) }
    : undefined;

/** The waiters an event queued (one write may queue several). */
const waitersOf = (data: Record<string, unknown>): Waiter[] =>
  Array.isArray(data.waiters) ? data.waiters.flatMap((w: Partial<Waiter>) => waiterOf(w) ?? []) : [];

/**
 * A destination's pace as read: its state, the revision it was read at (none for a new stream),
 * and the waiters queued by the changes before this one in the same write.
 */
export interface Read {
  state: PaceState;
  revision: bigint | undefined;
  queued: FoundWaiter[];
}

interface Pending {
  decide: (read: Read, now: number) => Promise<Change<unknown>> | Change<unknown>;
  resolve: (answer: unknown) => void;
  reject: (e: unknown) => void;
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
 * again and decides again. Within a process, the changes asked of one destination meanwhile are
 * decided one after another and written together: one read and one write for a burst of them.
 */
export const createPaceStore = (store: Pick<EventStore, 'append' | 'read' | 'truncateBefore'>, now: () => number = Date.now) => {
  const read = async (key: string): Promise<Read> => {
    const [last] = await store.read(paceStreamOf(key), { direction: 'backwards', maxCount: 1 });
    return last ? { state: stateOf(last.data), revision: last.revision, queued: [] } : { state: EMPTY, revision: undefined, queued: [] };
  };

  const cut = async (key: string, state: PaceState, revision: bigint) => {
    // Only the last event is needed, and the waiters not given a place yet, if any.
    const keepFrom = noneWaiting(state) ? revision : BigInt(Math.min(state.scanFrom, Number(revision)));
    if (revision % BigInt(CUT_AFTER) === 0n && keepFrom > 0n)
      await store.truncateBefore(paceStreamOf(key), keepFrom).catch(() => undefined);
  };

  /** Decides each change of the batch on the state the one before left, then writes them in one event; again after a lost race. */
  const writeBatch = async (key: string, batch: readonly Pending[]) => {
    for (;;) {
      const current = await read(key);
      const nextRevision = current.revision === undefined ? 0 : Number(current.revision) + 1;
      let state = current.state;
      const waiters: Waiter[] = [];
      const settled: Array<() => void> = [];
      for (const p of batch) {
        try {
          const decided = await p.decide(
            { state, revision: current.revision, queued: waiters.map((w) => ({ ...w, revision: nextRevision })) },
            now(),
          );
          if (decided.state) state = decided.state;
          if (decided.waiter) waiters.push(decided.waiter);
          settled.push(() => p.resolve(decided.answer));
        } catch (e) {
          settled.push(() => p.reject(e));
        }
      }
      if (state !== current.state) {
        try {
          const written = await store.append(
            paceStreamOf(key),
            [{ type: PACE_CHANGED, data: { state, ...(waiters.length > 0 ? { waiters } : {}) }, metadata: {} }],
            current.revision ?? 'no_stream',
          );
          await cut(key, state, written.nextRevision - 1n);
        } catch (e) {
          if (e instanceof WrongExpectedRevision) continue;
          throw e;
        }
      }
      for (const settle of settled) settle();
      return;
    }
  };

  const lines = new Map<string, Pending[]>();
  const drain = async (key: string, line: Pending[]) => {
    while (line.length > 0) {
      const batch = line.splice(0);
      await writeBatch(key, batch).catch((e: unknown) => batch.forEach((p) => p.reject(e)));
    }
    lines.delete(key);
  };

  /** Reads, decides and writes (in the destination's next batch) until the write lands on the revision it read. */
  const change = <A>(key: string, decide: (read: Read, now: number) => Promise<Change<A>> | Change<A>): Promise<A> =>
    new Promise<A>((resolve, reject) => {
      const pending: Pending = { decide, resolve: resolve as (a: unknown) => void, reject };
      const line = lines.get(key);
      if (line) return void line.push(pending);
      const started = [pending];
      lines.set(key, started);
      void drain(key, started);
    });

  /**
   * The waiters from the state's `scanFrom` on, lowest ticket first, up to `count` of them not
   * yet given a place; and the revision after the last event read.
   */
  const waitersAfter = async (key: string, read: Read, count: number): Promise<{ waiters: FoundWaiter[]; scanned: number }> => {
    const { state } = read;
    const waiters: FoundWaiter[] = [];
    let from = state.scanFrom;
    const found = (w: Waiter, revision: number) => {
      if (w.ticket >= state.granted && waiters.length < count) waiters.push({ ...w, revision });
    };
    while (waiters.length < count) {
      const page = await store.read(paceStreamOf(key), { fromRevision: BigInt(from), maxCount: WAITER_PAGE });
      for (const e of page) {
        for (const w of waitersOf(e.data)) found(w, Number(e.revision));
        // The event may hold more waiters than were taken: the next scan reads it again.
        if (waiters.length >= count) return { waiters, scanned: Number(e.revision) };
        from = Number(e.revision) + 1;
      }
      if (page.length < WAITER_PAGE) break;
    }
    for (const w of read.queued) found(w, w.revision);
    return { waiters, scanned: from };
  };

  return { read, change, waitersAfter };
};

export type PaceStore = ReturnType<typeof createPaceStore>;
export type { PaceLimit };
