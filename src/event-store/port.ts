/**
 * The event store port. Every adapter (embedded SQLite, KurrentDB) passes the same
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

export interface Subscription {
  close(): Promise<void>;
}

export interface EventStore {
  /** Appends atomically; rejects with WrongExpectedRevision when the stream moved on. */
  append(streamId: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult>;
  /** All events of one stream, oldest first; [] for an unknown stream. */
  read(streamId: string): Promise<StoredEvent[]>;
  /** Position of the newest trigger event, or 'start' when there is none. */
  headPosition(): Promise<Checkpoint>;
  /**
   * Delivers every trigger event after `from`, in position order, in batches; waits for each
   * batch's handler before delivering the next, then follows new events live.
   */
  subscribe(from: Checkpoint, handler: BatchHandler, onError: (e: unknown) => void): Subscription;
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

/** Streams this service owns; subscriptions only see these. */
export const TRIGGER_STREAM_PREFIX = 'action_trigger-';
