import * as E from 'fp-ts/Either';
import * as t from 'io-ts';
import { foldStream, racePause, runCommand, StreamKind } from '../../event-store/command';
import { EventStore, StoredEvent } from '../../event-store/port';
import { BreakerEvent, BreakerState, evolveBreaker, initialBreaker, startsAfresh } from './state';
import { breakersFollowedTo } from '../alerts/alerting-lease';

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

const breakerKind: StreamKind<BreakerState, BreakerEvent> = { initial: initialBreaker, evolve: evolveBreaker, read: readEvent };

export const loadBreaker = (store: EventStore, triggerId: string) => foldStream(store, breakerStreamOf(triggerId), breakerKind);

/**
 * A lost race with another process (another worker on the same store) re-reads and decides
 * again after a short random pause (at most this long). Never given up: each conflict means that
 * writer's outcomes were appended, so the contenders make progress, and giving up would lose one.
 */
const MAX_PAUSE_MS = 100;

type Decided = { events: BreakerEvent[] };
type Decide<R extends Decided> = (state: BreakerState) => R;

/**
 * One read-decide-append for several outcomes of one trigger, in order: each decides on the
 * state the ones before it left. Events before the last one that starts afresh are dropped.
 * Resolves to what each `decide` returned on the state its events were appended to.
 */
const appendOutcomes = async (store: EventStore, triggerId: string, decides: ReadonlyArray<Decide<Decided>>): Promise<Decided[]> => {
  const stream = breakerStreamOf(triggerId);
  const outcome = await runCommand(store, stream, {
    load: () => loadBreaker(store, triggerId),
    decide: (loaded) => {
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
      return E.right({
        events: events.map((e) => ({ type: e.type, data: e.data, metadata: {} })),
        result: { decided, afresh, count: events.length },
      });
    },
    retry: async (attempt) => {
      await racePause(attempt, MAX_PAUSE_MS);
      return true;
    },
    lost: (): never => {
      throw new Error('unreachable: a breaker write is retried until it is won');
    },
  });
  if (E.isLeft(outcome)) return outcome.left; // never: nothing refuses, and every lost race is retried
  const {
    result: { decided, afresh, count },
    appended,
  } = outcome.right;
  if (appended && afresh !== undefined) {
    // The appended events end at nextRevision: the one that starts afresh is counted back from there.
    const from = appended.nextRevision - BigInt(count - 1 - afresh);
    if (from > 0n) await store.truncateBefore(stream, await keptFrom(store, stream, from));
  }
  return decided;
};

/** Where a truncation before `from` may cut: never past an event the alerts have not read yet (they raise alerts from it). */
const keptFrom = async (store: EventStore, stream: string, from: bigint): Promise<bigint> => {
  const followed = await breakersFollowedTo(store);
  if (followed === undefined) return from;
  const before = await store.read(stream, { maxCount: Number(from) });
  const unread = before.find((e) => e.revision < from && (followed === 'start' || e.position > followed));
  return unread?.revision ?? from;
};

interface Waiting {
  decide: Decide<Decided>;
  resolve: (d: Decided) => void;
  reject: (e: unknown) => void;
}

/** Per store, each trigger's outcomes waiting for the write under way; a trigger is here while one is. */
const waitingBy = new WeakMap<EventStore, Map<string, Waiting[]>>();

/** Writes a trigger's waiting outcomes, a batch at a time, until none is left. */
const drain = async (store: EventStore, triggerId: string, waiting: Map<string, Waiting[]>) => {
  for (let batch = waiting.get(triggerId)!; batch.length > 0; batch = waiting.get(triggerId)!) {
    waiting.set(triggerId, []);
    try {
      const decided = await appendOutcomes(
        store,
        triggerId,
        batch.map((w) => w.decide),
      );
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
    if (!waiting) waitingBy.set(store, (waiting = new Map()));
    // Each decide's own result comes back to it: the cast only undoes the widening.
    const entry: Waiting = { decide, resolve: resolve as (d: Decided) => void, reject };
    const batch = waiting.get(triggerId);
    if (batch) batch.push(entry);
    else {
      waiting.set(triggerId, [entry]);
      void drain(store, triggerId, waiting);
    }
  });
