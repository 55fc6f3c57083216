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

/** Many dispatches of one trigger end at once: a lost race re-reads and decides again, as handleCommand does. */
const MAX_ATTEMPTS = 10;
const raceBackoff = (attempt: number) => new Promise((r) => setTimeout(r, Math.random() * 2 ** attempt));

/**
 * Reads the breaker, lets `decide` say what to record, appends it with the expected revision,
 * and drops what no longer matters (events before one that starts afresh). Resolves to what
 * `decide` returned on the state it was appended to.
 */
export const recordOutcome = async <R extends { events: BreakerEvent[] }>(
  store: EventStore, triggerId: string, decide: (state: BreakerState) => R,
): Promise<R> => {
  const stream = breakerStreamOf(triggerId);
  for (let attempt = 1; ; attempt++) {
    const { state, revision } = await loadBreaker(store, triggerId);
    const decided = decide(state);
    if (decided.events.length === 0) return decided;
    try {
      const appended = await store.append(stream, decided.events.map((e) => ({ type: e.type, data: e.data, metadata: {} })),
        revision ?? 'no_stream');
      if (decided.events.length === 1 && startsAfresh(state, decided.events[0]!) && revision !== undefined) {
        await store.truncateBefore(stream, appended.nextRevision);
      }
      return decided;
    } catch (e) {
      if (!(e instanceof WrongExpectedRevision) || attempt >= MAX_ATTEMPTS) throw e;
      await raceBackoff(attempt);
    }
  }
};
