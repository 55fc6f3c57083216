import type { DispatchPlan, SignalEnvelope } from '../dispatch/types';
import type { NewEvent, StoredEvent } from '../event-store/port';

/** Each accepted signal is the stream `signal-<id>`: its first event is the acceptance. */
export const signalStreamOf = (signalId: string) => `signal-${signalId}`;

export const SIGNAL_ACCEPTED = 'SignalAccepted';
/** The relay gave up starting the signal's dispatch (Temporal refused it for good). */
export const DISPATCH_REFUSED = 'SignalDispatchRefused';

/** A trigger that watches the signal's content type but did not match it, and why. */
export interface NotMatched {
  trigger_id: string;
  version: number;
  reason: 'inactive' | 'another_signal';
  /** For `another_signal`: the signals the trigger watches. */
  watches?: string[];
}

/** What the store keeps of an accepted signal: itself, its plan, and the triggers it did not match. */
export interface SignalRecord {
  signal: SignalEnvelope;
  plan: DispatchPlan;
  not_matched: NotMatched[];
  /** More triggers did not match than `not_matched` lists (it stops at MAX_NOT_MATCHED). */
  not_matched_truncated: boolean;
}

export const acceptedEvent = (record: SignalRecord, acceptedAt: Date): NewEvent => ({
  type: SIGNAL_ACCEPTED, data: record as unknown as Record<string, unknown>, metadata: { accepted_at: acceptedAt.toISOString() },
});

export const refusedEvent = (reason: string): NewEvent => ({ type: DISPATCH_REFUSED, data: { reason }, metadata: { refused_at: new Date().toISOString() } });

export interface StoredSignal {
  record: SignalRecord;
  acceptedAt: string;
  position: bigint;
  /** Why the dispatch could not be started, when the relay gave up. */
  refused?: string;
}

/** The stored signal from its stream's events, or undefined for none. */
export const storedSignalOf = (events: readonly StoredEvent[]): StoredSignal | undefined => {
  const accepted = events.find((e) => e.type === SIGNAL_ACCEPTED);
  if (!accepted) return undefined;
  const refused = events.find((e) => e.type === DISPATCH_REFUSED)?.data.reason;
  return {
    record: accepted.data as unknown as SignalRecord,
    acceptedAt: String(accepted.metadata.accepted_at),
    position: accepted.position,
    ...(typeof refused === 'string' ? { refused } : {}),
  };
};
