/**
 * The event store port. Every adapter (embedded SQLite, PostgreSQL, KurrentDB) passes the same
 * contract suite in test/support/event-store-contract.ts.
 */

/** Stream revision the writer expects: the revision of the stream's last event, or none yet. */
export type ExpectedRevision = 'no_stream' | 'any' | bigint;

export interface NewEvent {
  readonly type: string;
  readonly data: Record<string, unknown>;
  readonly metadata: Record<string, unknown>;
}

export interface StoredEvent extends NewEvent {
  readonly streamId: string;
  /** 0-based index of the event inside its stream. */
  readonly revision: bigint;
  /** Global, strictly increasing position across all streams (the subscription order). */
  readonly position: bigint;
}

export interface AppendResult {
  readonly nextRevision: bigint;
  readonly position: bigint;
}

/** A checkpoint: the position of the last event handled, or 'start' for none. */
export type Checkpoint = bigint | 'start';

export type BatchHandler = (events: readonly StoredEvent[]) => Promise<void>;

/**
 * Streams fall into categories by the part of their id before the first `-` (as KurrentDB's
 * `$ce-` streams do): `action_trigger-<id>` (never removed), `signal-<id>` and
 * `delivered-<workflow id>` (kept for the retention window), and `breaker-<trigger id>` (a
 * trigger's circuit breaker, truncated as its runs of failures end), and
 * `snapshot-action_trigger-<id>` (a trigger's state every SNAPSHOT_EVERY versions, so a write
 * reads a bounded part of its stream; src/model/triggers/snapshots.ts), and `ordered-<trigger
 * id>-<key>` (the turns of one instance order, cut as turns end, kept for the retention window;
 * src/ordering/turns.ts), and `paced-<destination key>` (a destination's pace, every event the
 * whole state, cut as it goes; src/pacing/pace-state.ts), and `alert-<alert id>` (an alert and
 * what each sink made of it, kept for the retention window; src/alerts). Subscriptions and head
 * positions are per category.
 */
export type Category = 'action_trigger' | 'signal' | 'delivered' | 'breaker' | 'snapshot' | 'ordered' | 'paced' | 'alert';

/** The categories removed after the retention window. */
export type Retained = 'signal' | 'delivered' | 'ordered' | 'alert';

export interface SubscribeOptions {
  /** Default `action_trigger`. */
  readonly category?: Category;
  /** How soon appends by other processes are seen (adapters that poll); the adapter's default otherwise. */
  readonly pollMs?: number;
  /**
   * A batch stops before its events' data, as a JSON array, would pass this many bytes (always
   * at least one event): a handler that holds its batch (a stream waiting for its client) then
   * holds a bounded part of a backlog of large definitions. Absent, the adapter's own bound
   * (SQLite: 16 MiB; KurrentDB hands over one event at a time).
   */
  readonly maxBatchBytes?: number;
  /**
   * Where the subscriber already is, asked before each read (adapters that poll): a handler
   * whose work another process on the same read model did (API_PROCESSES > 1) moves on without
   * reading those events again. It may only ever move forwards.
   */
  readonly resumeAfter?: () => Checkpoint;
}

/** A part of one stream to read. */
export interface ReadRange {
  /** The first revision read (forwards: the lowest; backwards: the highest). Default: the stream's start, or its end backwards. */
  readonly fromRevision?: bigint;
  /** At most this many events. */
  readonly maxCount?: number;
  /** `backwards`: newest first. */
  readonly direction?: 'forwards' | 'backwards';
}

export interface Subscription {
  close(): Promise<void>;
}

export interface EventStore {
  /** Appends atomically; rejects with WrongExpectedRevision when the stream moved on. */
  append(streamId: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult>;
  /**
   * The events of one stream, oldest first, or the part `range` names; [] for an unknown stream.
   */
  read(streamId: string, range?: ReadRange): Promise<StoredEvent[]>;
  /** Position of the newest event of the category (default `action_trigger`), or 'start' when there is none. */
  headPosition(category?: Category): Promise<Checkpoint>;
  /**
   * Delivers every event of the category after `from`, in position order, in batches; waits for
   * each batch's handler before delivering the next, then follows new events live.
   */
  subscribe(from: Checkpoint, handler: BatchHandler, onError: (e: unknown) => void, options?: SubscribeOptions): Subscription;
  /**
   * Up to `limit` events of the category after `after`, in position order: a page. Paging on from
   * the last position returned misses nothing and repeats nothing (the audit feed relies on it).
   */
  readCategory(category: Category, after: Checkpoint, limit: number): Promise<StoredEvent[]>;
  /** How many events of the category lie after `from` (a backlog), counting at most `cap`. */
  countAfter(category: Category, from: Checkpoint, cap: number): Promise<number>;
  /**
   * Removes the category's events recorded before `before` and at or before position `through`,
   * oldest first, at most `max` of them; resolves to how many went. A stream whose events all
   * went may be started again (`no_stream`).
   */
  removeRecordedBefore(category: Retained, before: Date, through: bigint, max: number): Promise<number>;
  /** Removes one stream's events before `revision`; the stream goes on from its last revision. */
  truncateBefore(streamId: string, revision: bigint): Promise<void>;
  close(): Promise<void>;
}

export class WrongExpectedRevision extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: bigint | 'no_stream',
  ) {
    super(`stream ${streamId}: expected revision ${String(expected)}, actual ${String(actual)}`);
    this.name = 'WrongExpectedRevision';
  }
}

/** The category of a stream id: its part before the first `-`. */
export const categoryOf = (streamId: string) => streamId.slice(0, Math.max(0, streamId.indexOf('-')));

/** Trigger streams: `action_trigger-<id>`. */
export const TRIGGER_STREAM_PREFIX = 'action_trigger-';

/**
 * A stored event this build cannot decode: acting on a guess would be wrong, so readers stop (503,
 * or a logged fault). Signals stand alone: the relay records an unreadable one as refused and goes on.
 */
export class UnreadableEvent extends Error {
  constructor(
    readonly streamId: string,
    readonly revision: bigint,
    readonly reason: string,
  ) {
    super(`stored event ${streamId}@${revision} cannot be read: ${reason}`);
    this.name = 'UnreadableEvent';
  }
}

/** What `read` answers, or undefined where it meets an event this build cannot read. */
export const readable = <A>(read: () => A): A | undefined => {
  try {
    return read();
  } catch (e) {
    if (e instanceof UnreadableEvent) return undefined;
    throw e;
  }
};

/** How soon a client may retry a write the store could not take (`Retry-After`): a store server is back as soon as it restarts. */
export const STORE_RETRY_AFTER_SECS = 2;

/**
 * The store cannot be reached (a server-backed store while its server is down, restarting or
 * out of connections): the caller answers 503 and may try again. Nothing is half-written, but a
 * write whose connection dropped during its commit may have committed whole.
 */
export class StoreUnavailable extends Error {
  constructor(readonly reason: string) {
    super(`the event store is unavailable: ${reason}`);
    this.name = 'StoreUnavailable';
  }
}
