import * as E from 'fp-ts/Either';
import { racePause, runCommand } from '../../event-store/command';
import { EventStore } from '../../event-store/port';
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

const NEW_STREAM = {
  state: initialState,
  version: 0,
  revision: 'no_stream' as const,
  createdAt: undefined,
  updatedAt: undefined,
  base: undefined,
  folded: [],
};

/** A write without If-Match that loses a race re-reads and decides again, up to this many times. */
const MAX_ATTEMPTS = 10;

/**
 * A trigger's state from its newest snapshot at or before `upToVersion` (default: the newest
 * version) and the events after it (src/model/triggers/snapshots.ts). An event that cannot be read
 * throws UnreadableEvent: skipping it would act on a wrong state.
 */
export const loadTrigger = async (store: EventStore, streamId: string, upToVersion = Infinity) => {
  const base = await snapshotUpTo(store, streamId, upToVersion);
  const from = base?.version ?? 0;
  const count = Number.isFinite(upToVersion) ? Math.max(0, upToVersion - from) : undefined;
  const stored =
    count === 0 ? [] : await store.read(streamId, { fromRevision: BigInt(from), ...(count === undefined ? {} : { maxCount: count }) });
  const folded: Folded[] = stored.map((e) => ({ event: readStoredEvent(e), occurredAt: occurredAt(e.metadata) }));
  const state = folded.reduce((s: TriggerState, f) => evolve(s, f.event), base?.state ?? initialState);
  const createdAt: string | undefined = base?.createdAt ?? folded[0]?.occurredAt;
  const updatedAt: string | undefined = folded.at(-1)?.occurredAt ?? base?.updatedAt;
  const version = from + stored.length;
  return { state, version, revision: version === 0 ? ('no_stream' as const) : BigInt(version - 1), createdAt, updatedAt, base, folded };
};

/**
 * Reads the stream (from its newest snapshot), folds `evolve`, calls `decide`, appends with the
 * expected revision (src/event-store/command.ts), then writes a snapshot when one is due.
 */
export const handleCommand = async (
  store: EventStore,
  streamId: string,
  decide: (state: TriggerState) => E.Either<DomainError, TriggerEvent[]>,
  options: CommandOptions,
): Promise<E.Either<DomainError, CommandResult>> => {
  const expected = options.expectedVersion;
  const outcome = await runCommand(store, streamId, {
    load: (attempt) => (options.newStream && attempt === 1 ? Promise.resolve(NEW_STREAM) : loadTrigger(store, streamId)),
    decide: (loaded) => {
      if (expected !== undefined && expected !== loaded.version)
        return E.left({ _tag: 'VersionMismatch', expected, actual: loaded.version });
      return E.map((events: TriggerEvent[]) => ({
        events: events.map((e) => ({ type: e.type, data: e.data, metadata: { ...options.metadata } })),
        result: events,
      }))(decide(loaded.state));
    },
    // With If-Match, a lost race is the client's to resolve; without, decide again on the new state.
    retry: async (attempt) => {
      if (expected !== undefined || attempt >= MAX_ATTEMPTS) return false;
      await racePause(attempt);
      return true;
    },
    lost: (): DomainError =>
      expected !== undefined ? { _tag: 'VersionMismatch', expected, actual: -1 } : { _tag: 'ConcurrentUpdate', id: streamId },
  });
  if (E.isLeft(outcome)) return outcome;
  const {
    result: events,
    loaded: { state, version, createdAt, updatedAt, base, folded },
    appended,
  } = outcome.right;
  const now = options.metadata.occurred_at;
  if (!appended) return E.right({ state, version, position: undefined, events, createdAt: createdAt ?? now, updatedAt: updatedAt ?? now });
  const written = events.map((event) => ({ event, occurredAt: now }));
  await writeSnapshots(store, streamId, base, [...folded, ...written], createdAt ?? now);
  return E.right({
    state: events.reduce(evolve, state),
    version: Number(appended.nextRevision) + 1,
    position: appended.position,
    events,
    createdAt: createdAt ?? now,
    updatedAt: now,
  });
};
