import * as t from 'io-ts';
import { EventStore, StoredEvent, WrongExpectedRevision } from '../event-store/port';
import { BreakerEvent, BreakerState, evolveBreaker, initialBreaker, startsAfresh } from './state';

/** A trigger's breaker stream; only the breaker writes it, the trigger's stream stays the API's. */
export const breakerStreamOf = (triggerId: string) => `breaker-${triggerId}`;

const Stored = t.union([
  t.type({ type: t.literal('ActionFailed'), data: t.type({ version: t.number, action: t.string, at: t.string }) }),
  t.type({ type: t.literal('ActionRecovered'), data: t.type({ version: t.number, action: t.string }) }),
]);

/** Decoded at the edge; an event this build cannot read is a fault (the caller logs it), never guessed at. */
const readEvent = (e: StoredEvent): BreakerEvent => {
  const decoded = Stored.decode({ type: e.type, data: e.data });
  if (decoded._tag === 'Left') throw new Error(`stored event ${e.streamId}@${e.revision} is not a breaker event`);
  return decoded.right;
};

export const loadBreaker = async (store: EventStore, triggerId: string) => {
  const stored = await store.read(breakerStreamOf(triggerId));
  const state = stored.reduce((s, e) => evolveBreaker(s, readEvent(e)), initialBreaker);
  return { state, revision: stored.at(-1)?.revision };
};

/**
 * A lost race with another process (another worker on the same store) re-reads and decides
 * again after a short random pause. Never given up: each conflict means that writer's outcomes
 * were appended, so the contenders make progress, and giving up would lose an outcome.
 */
const raceBackoff = (attempt: number) => new Promise((r) => setTimeout(r, Math.random() * Math.min(100, 2 ** attempt)));

type Decided = { events: BreakerEvent[] };
type Decide<R extends Decided> = (state: BreakerState) => R;

/** Appends with the expected revision; false when another writer got there first. */
const appendIfAt = async (store: EventStore, stream: string, events: BreakerEvent[], revision: bigint | undefined) => {
  try {
    return await store.append(stream, events.map((e) => ({ type: e.type, data: e.data, metadata: {} })), revision ?? 'no_stream');
  } catch (e) {
    if (e instanceof WrongExpectedRevision) return false;
    throw e;
  }
};

/**
 * One read-decide-append for several outcomes of one trigger, in order: each decides on the
 * state the ones before it left. Events before the last one that starts afresh are dropped.
 * Resolves to what each `decide` returned on the state its events were appended to.
 */
const appendOutcomes = async (store: EventStore, triggerId: string, decides: ReadonlyArray<Decide<Decided>>): Promise<Decided[]> => {
  const stream = breakerStreamOf(triggerId);
  for (let attempt = 1; ; attempt++) {
    const loaded = await loadBreaker(store, triggerId);
    let state = loaded.state;
    const events: BreakerEvent[] = [];
    let afresh: number | undefined;
    const decided = decides.map((decide) => {
      const d = decide(state);
      for (const e of d.events) {
        if (startsAfresh(state, e)) afresh = events.length;
        events.push(e);
        state = evolveBreaker(state, e);
      }
      return d;
    });
    if (events.length === 0) return decided;
    const appended = await appendIfAt(store, stream, events, loaded.revision);
    if (appended) {
      // The appended events end at nextRevision: the one that starts afresh is counted back from there.
      const from = afresh === undefined ? 0n : appended.nextRevision - BigInt(events.length - 1 - afresh);
      if (from > 0n) await store.truncateBefore(stream, from);
      return decided;
    }
    await raceBackoff(attempt);
  }
};

interface Waiting { decide: Decide<Decided>; resolve: (d: Decided) => void; reject: (e: unknown) => void }

/** Per store, each trigger's outcomes waiting for the write under way; a trigger is here while one is. */
const waitingBy = new WeakMap<EventStore, Map<string, Waiting[]>>();

/** Writes a trigger's waiting outcomes, a batch at a time, until none is left. */
const drain = async (store: EventStore, triggerId: string, waiting: Map<string, Waiting[]>) => {
  for (let batch = waiting.get(triggerId)!; batch.length > 0; batch = waiting.get(triggerId)!) {
    waiting.set(triggerId, []);
    try {
      const decided = await appendOutcomes(store, triggerId, batch.map((w) => w.decide));
      batch.forEach((w, i) => w.resolve(decided[i]!));
    } catch (e) {
      batch.forEach((w) => w.reject(e));
    }
  }
  waiting.delete(triggerId);
};

/**
 * Reads the breaker, lets `decide` say what to record, appends it with the expected revision,
 * and drops what no longer matters (events before one that starts afresh). Resolves to what
 * `decide` returned on the state it was appended to.
 *
 * Exact under any concurrency: within a process, a trigger's outcomes are written one batch at
 * a time (those arriving during a write wait and go together in the next), so they never race
 * each other and a burst costs a few writes, not one each; a race with another process is
 * retried until it is won.
 */
export const recordOutcome = <R extends Decided>(store: EventStore, triggerId: string, decide: Decide<R>): Promise<R> =>
  new Promise<R>((resolve, reject) => {
    let waiting = waitingBy.get(store);
    if (!waiting) waitingBy.set(store, waiting = new Map());
    // Each decide's own result comes back to it: the cast only undoes the widening.
    const entry: Waiting = { decide, resolve: resolve as (d: Decided) => void, reject };
    const batch = waiting.get(triggerId);
    if (batch) batch.push(entry);
    else {
      waiting.set(triggerId, [entry]);
      void drain(store, triggerId, waiting);
    }
  });
