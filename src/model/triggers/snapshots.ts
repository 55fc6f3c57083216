import { EventStore, NewEvent, StoredEvent, TRIGGER_STREAM_PREFIX } from '../../event-store/port';
import { SCHEMA_VERSION, TriggerEvent } from './events';
import { readStoredEvent } from './stored-events';
import { evolve, initialState, TriggerState } from './trigger';

/**
 * A trigger's state every SNAPSHOT_EVERY versions, in its own stream beside the trigger's
 * (`snapshot-action_trigger-<id>`, the Nth event holding version N × SNAPSHOT_EVERY). Loading a
 * version reads the newest snapshot at or before it and folds fewer than SNAPSHOT_EVERY events
 * after it, so a write (or a delivery's read) costs the same for a trigger with 10 versions as
 * for one with 100,000, where reading the whole stream grew with every edit (1,000 edits of a
 * 1 MiB trigger: a gigabyte read per write). The trigger's events stay the truth: a snapshot
 * that is missing or cannot be read only means reading more of them.
 */
export const SNAPSHOT_EVERY = 50;
const SNAPSHOT = 'TriggerSnapshot';
/** Bumped when what a snapshot holds changes; snapshots of another format are not used. */
const FORMAT = 1;

export const snapshotStreamOf = (triggerStream: string) => `snapshot-${triggerStream}`;

export interface Snapshot {
  readonly version: number;
  readonly state: TriggerState;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** An event read or written after a snapshot, with when it happened. */
export interface Folded {
  readonly event: TriggerEvent;
  readonly occurredAt: string;
}

/** The events that fold to `state` from nothing: a snapshot keeps its state as them, so it is read back (and upcast) as stored events are. */
const eventsOf = (state: TriggerState, triggerId: string): TriggerEvent[] => {
  const envelope = { schema_version: SCHEMA_VERSION, trigger_id: triggerId };
  if (state.status === 'deleted') return [{ type: 'TriggerDeleted', data: envelope }];
  if (state.status === 'absent') return [];
  return [
    { type: 'TriggerCreated', data: { ...envelope, definition: state.definition } },
    ...(state.deactivatedReason === undefined
      ? []
      : [{ type: 'TriggerDeactivated' as const, data: { ...envelope, reason: state.deactivatedReason } }]),
  ];
};

const snapshotEvent = (s: Snapshot, triggerId: string): NewEvent => ({
  type: SNAPSHOT,
  data: { format: FORMAT, version: s.version, created_at: s.createdAt, updated_at: s.updatedAt, events: eventsOf(s.state, triggerId) },
  metadata: {},
});

/** A stored snapshot, or undefined when it is not one this build can use (then the events are read instead). */
const readSnapshot = (e: StoredEvent): Snapshot | undefined => {
  const d = e.data;
  if (
    e.type !== SNAPSHOT ||
    d.format !== FORMAT ||
    d.version !== SNAPSHOT_EVERY * (Number(e.revision) + 1) ||
    typeof d.created_at !== 'string' ||
    typeof d.updated_at !== 'string' ||
    !Array.isArray(d.events)
  )
    return undefined;
  try {
    const events = (d.events as Array<{ type?: unknown; data?: unknown }>).map((raw) =>
      readStoredEvent({ type: String(raw?.type), data: raw?.data, streamId: e.streamId, revision: e.revision }),
    );
    return { version: d.version, state: events.reduce(evolve, initialState), createdAt: d.created_at, updatedAt: d.updated_at };
  } catch {
    return undefined;
  }
};

/** The newest usable snapshot of a trigger stream at or before `upToVersion`. */
export const snapshotUpTo = async (store: EventStore, triggerStream: string, upToVersion: number): Promise<Snapshot | undefined> => {
  if (upToVersion < SNAPSHOT_EVERY) return undefined;
  const stream = snapshotStreamOf(triggerStream);
  const [last] = await store.read(stream, { direction: 'backwards', maxCount: 1 });
  if (!last) return undefined;
  const wanted = Number.isFinite(upToVersion) ? BigInt(Math.floor(upToVersion / SNAPSHOT_EVERY) - 1) : last.revision;
  const event = last.revision <= wanted ? last : (await store.read(stream, { fromRevision: wanted, maxCount: 1 }))[0];
  return event && readSnapshot(event);
};

/**
 * Writes the snapshots due in `after` (the events since `base`, the newest snapshot, up to the
 * stream's end). Two writers racing write the same content: the loser's append is refused and
 * dropped.
 */
export const writeSnapshots = async (
  store: EventStore,
  triggerStream: string,
  base: Snapshot | undefined,
  after: readonly Folded[],
  createdAt: string,
): Promise<void> => {
  const triggerId = triggerStream.slice(TRIGGER_STREAM_PREFIX.length);
  let state = base?.state ?? initialState;
  let version = base?.version ?? 0;
  const due: NewEvent[] = [];
  for (const { event, occurredAt } of after) {
    state = evolve(state, event);
    version += 1;
    if (version % SNAPSHOT_EVERY === 0) due.push(snapshotEvent({ version, state, createdAt, updatedAt: occurredAt }, triggerId));
  }
  if (due.length === 0) return;
  const expected = base ? BigInt(base.version / SNAPSHOT_EVERY - 1) : 'no_stream';
  // Refused (a racing writer wrote the same) or failed (the next write of the trigger writes them):
  // either way the trigger's own write stands.
  await store.append(snapshotStreamOf(triggerStream), due, expected).catch(() => undefined);
};
