import * as E from 'fp-ts/Either';
import { EventStore, WrongExpectedRevision } from './port';
import { DomainError } from '../domain-error';
import { decodeTriggerEvent, EventMetadata, TriggerEvent } from '../triggers/events';
import { evolve, initialState, TriggerState } from '../triggers/trigger';

export interface CommandResult {
  readonly state: TriggerState;
  /** Number of events in the stream after the command (the resource's `version`). */
  readonly version: number;
  /** Global position of the last appended event; undefined when the command changed nothing. */
  readonly position: bigint | undefined;
  readonly events: TriggerEvent[];
}

export interface CommandOptions {
  /** The version the client last saw (If-Match); a mismatch is a value, not a retry. */
  readonly expectedVersion?: number;
  readonly metadata: EventMetadata;
}

/**
 * A write without If-Match that loses a race re-reads and decides again, after a random pause
 * that grows with each attempt (racing writers would otherwise collide again in the same commit).
 */
const MAX_ATTEMPTS = 10;
const raceBackoff = (attempt: number) => new Promise((r) => setTimeout(r, Math.random() * 2 ** attempt));

/** A trigger's state from its events: all of them, or the first `upToVersion`. */
export const loadTrigger = async (store: EventStore, streamId: string, upToVersion = Infinity) => {
  const stored = await store.read(streamId);
  let state = initialState;
  for (const e of stored.slice(0, upToVersion)) {
    const event = decodeTriggerEvent(e.type, e.data);
    if (event) state = evolve(state, event);
  }
  return { state, version: stored.length };
};

/** Reads the stream, folds `evolve`, calls `decide`, appends with the expected revision. */
export const handleCommand = async (
  store: EventStore,
  streamId: string,
  decide: (state: TriggerState) => E.Either<DomainError, TriggerEvent[]>,
  options: CommandOptions,
): Promise<E.Either<DomainError, CommandResult>> => {
  for (let attempt = 1; ; attempt++) {
    const { state, version } = await loadTrigger(store, streamId);
    const expected = options.expectedVersion;
    if (expected !== undefined && expected !== version) {
      return E.left({ _tag: 'VersionMismatch', expected, actual: version });
    }
    const decided = decide(state);
    if (E.isLeft(decided)) return decided;
    const events = decided.right;
    if (events.length === 0) return E.right({ state, version, position: undefined, events });
    try {
      const appended = await store.append(
        streamId,
        events.map((e) => ({ type: e.type, data: e.data, metadata: { ...options.metadata } })),
        version === 0 ? 'no_stream' : BigInt(version - 1),
      );
      const next = events.reduce(evolve, state);
      return E.right({ state: next, version: Number(appended.nextRevision) + 1, position: appended.position, events });
    } catch (e) {
      if (!(e instanceof WrongExpectedRevision)) throw e;
      if (expected !== undefined) return E.left({ _tag: 'VersionMismatch', expected, actual: -1 });
      if (attempt >= MAX_ATTEMPTS) return E.left({ _tag: 'ConcurrentUpdate', id: streamId });
      await raceBackoff(attempt);
    }
  }
};
