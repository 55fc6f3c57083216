import * as E from 'fp-ts/Either';
import { EventStore, WrongExpectedRevision } from '../../event-store/port';
import { DomainError } from '../../kernel/domain-error';
import { EventMetadata, occurredAt, TriggerEvent } from './events';
import { readStoredEvent } from './stored-events';
import { evolve, initialState, TriggerState } from './trigger';
import { Folded, snapshotUpTo, writeSnapshots } from './snapshots';

export interface CommandResult {
  readonly state: TriggerState;
  /** Number of events in the stream after the command (the resource's `version`). */
  readonly version: number;
  /** Global position of the last appended event; undefined when the command changed nothing. */
  readonly position: bigint | undefined;
  readonly events: TriggerEvent[];
  /** When the stream's first event and its newest event happened (the resource's timestamps). */
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface CommandOptions {
  /** The version the client last saw (If-Match); a mismatch is a value, not a retry. */
  readonly expectedVersion?: number;
  readonly metadata: EventMetadata;
  /**
   * The stream is new (its id was just generated): nothing is read before the first append,
   * which still expects no stream, so a clash would be refused, not overwritten.
   */
  readonly newStream?: true;
}

const NEW_STREAM = { state: initialState, version: 0, createdAt: undefined, updatedAt: undefined, base: undefined, folded: [] };

/**
 * A write without If-Match that loses a race re-reads and decides again, after a random pause
 * that grows with each attempt (racing writers would otherwise collide again in the same commit).
 */
const MAX_ATTEMPTS = 10;
const raceBackoff = (attempt: number) => new Promise((r) => setTimeout(r, Math.random() * 2 ** attempt));

/**
 * A trigger's state from its newest snapshot at or before `upToVersion` (default: the newest
 * version) and the events after it (src/triggers/model/snapshots.ts). An event that cannot be read
 * throws UnreadableEvent: skipping it would act on a wrong state.
 */
export const loadTrigger = async (store: EventStore, streamId: string, upToVersion = Infinity) => {
  const base = await snapshotUpTo(store, streamId, upToVersion);
  const from = base?.version ?? 0;
  const count = Number.isFinite(upToVersion) ? Math.max(0, upToVersion - from) : undefined;
  const stored = count === 0 ? [] : await store.read(streamId, { fromRevision: BigInt(from), ...(count === undefined ? {} : { maxCount: count }) });
  const folded: Folded[] = stored.map((e) => ({ event: readStoredEvent(e), occurredAt: occurredAt(e.metadata) }));
  const state = folded.reduce((s: TriggerState, f) => evolve(s, f.event), base?.state ?? initialState);
  const createdAt: string | undefined = base?.createdAt ?? folded[0]?.occurredAt;
  const updatedAt: string | undefined = folded.at(-1)?.occurredAt ?? base?.updatedAt;
  return { state, version: from + stored.length, createdAt, updatedAt, base, folded };
};

/** Reads the stream, folds `evolve`, calls `decide`, appends with the expected revision. */
export const handleCommand = async (
  store: EventStore,
  streamId: string,
  decide: (state: TriggerState) => E.Either<DomainError, TriggerEvent[]>,
  options: CommandOptions,
): Promise<E.Either<DomainError, CommandResult>> => {
  for (let attempt = 1; ; attempt++) {
    const { state, version, createdAt, updatedAt, base, folded } = options.newStream && attempt === 1 ? NEW_STREAM : await loadTrigger(store, streamId);
    const expected = options.expectedVersion;
    if (expected !== undefined && expected !== version) {
      return E.left({ _tag: 'VersionMismatch', expected, actual: version });
    }
    const decided = decide(state);
    if (E.isLeft(decided)) return decided;
    const events = decided.right;
    const now = options.metadata.occurred_at;
    if (events.length === 0) return E.right({ state, version, position: undefined, events, createdAt: createdAt ?? now, updatedAt: updatedAt ?? now });
    try {
      const appended = await store.append(
        streamId,
        events.map((e) => ({ type: e.type, data: e.data, metadata: { ...options.metadata } })),
        version === 0 ? 'no_stream' : BigInt(version - 1),
      );
      const next = events.reduce(evolve, state);
      const written = events.map((event) => ({ event, occurredAt: now }));
      await writeSnapshots(store, streamId, base, [...folded, ...written], createdAt ?? now);
      return E.right({ state: next, version: Number(appended.nextRevision) + 1, position: appended.position, events,
        createdAt: createdAt ?? now, updatedAt: now });
    } catch (e) {
      if (!(e instanceof WrongExpectedRevision)) throw e;
      if (expected !== undefined) return E.left({ _tag: 'VersionMismatch', expected, actual: -1 });
      if (attempt >= MAX_ATTEMPTS) return E.left({ _tag: 'ConcurrentUpdate', id: streamId });
      await raceBackoff(attempt);
    }
  }
};
