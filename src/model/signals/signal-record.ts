import * as t from 'io-ts';
import type { DispatchPlan, RedeliveryMode, SignalEnvelope } from '../../dispatch/types';
import type { StreamKind } from '../../event-store/command';
import { NewEvent, StoredEvent, UnreadableEvent } from '../../event-store/port';
import { describeErrors } from '../../kernel/field-errors';

/** Each accepted signal is the stream `signal-<id>`: its first event is the acceptance. */
export const signalStreamOf = (signalId: string) => `signal-${signalId}`;

export const SIGNAL_ACCEPTED = 'SignalAccepted';
/** The relay gave up starting the signal's dispatch (Temporal refused it for good). */
export const DISPATCH_REFUSED = 'SignalDispatchRefused';
/** A new dispatch of some of the signal's actions was asked for; the relay starts it. */
export const REDELIVERY_REQUESTED = 'SignalRedeliveryRequested';

/** A trigger that watches the signal's content type but did not match it, and why. */
export interface NotMatched {
  trigger_id: string;
  version: number;
  reason: 'inactive' | 'another_signal' | 'condition_false';
  /** For `another_signal`: the signals the trigger watches. */
  watches?: string[];
  /** For `condition_false`: the clause that did not hold (`condition.instance.status.$eq`) and why. */
  clause?: string;
  detail?: string;
}

/** What the store keeps of an accepted signal: itself, its plan, and the triggers it did not match. */
export interface SignalRecord {
  signal: SignalEnvelope;
  plan: DispatchPlan;
  not_matched: NotMatched[];
  /** More triggers did not match than `not_matched` lists (it stops at MAX_NOT_MATCHED). */
  not_matched_truncated: boolean;
  /** The signal matched no trigger, so its instance was not kept (`signal.instance` is `{}`). */
  instance_dropped?: true;
}

/**
 * Where a signal's work began: the accepting request's id and (tracing on) its W3C `traceparent`.
 * Kept in the acceptance's metadata, so the relay, maybe in another process later, starts the
 * dispatch in the same trace and its log lines name the same request.
 */
export interface SignalOrigin {
  request_id?: string;
  traceparent?: string;
}

export const acceptedEvent = (record: SignalRecord, acceptedAt: Date, origin: SignalOrigin = {}): NewEvent => ({
  type: SIGNAL_ACCEPTED,
  data: { ...record },
  metadata: { accepted_at: acceptedAt.toISOString(), ...origin },
});

/** The origin kept on an event (signals accepted before it was kept have none). */
export const originOf = (e: StoredEvent): SignalOrigin => {
  const { request_id: requestId, traceparent } = e.metadata;
  return {
    ...(typeof requestId === 'string' ? { request_id: requestId } : {}),
    ...(typeof traceparent === 'string' ? { traceparent } : {}),
  };
};

/** `redelivery`: the number of the redelivery refused, absent for the signal's own dispatch. */
export const refusedEvent = (reason: string, redelivery?: number): NewEvent => ({
  type: DISPATCH_REFUSED,
  data: { reason, ...(redelivery === undefined ? {} : { redelivery }) },
  metadata: { refused_at: new Date().toISOString() },
});

/** One redelivery of a signal: its own workflow, linked from the signal's stream. */
export interface Redelivery {
  /** 1, 2, …: the order asked for; part of the workflow id. */
  number: number;
  workflow_id: string;
  mode: RedeliveryMode;
  /** The delivery ids it sends (each keeps its `webhook-id`). */
  delivery_ids: string[];
  /** The actions as planned for it: the original's versions (`as_dispatched`) or the current ones. */
  plan: DispatchPlan;
}

export const redeliveryEvent = (r: Redelivery, requestedAt: Date, origin: SignalOrigin = {}): NewEvent => ({
  type: REDELIVERY_REQUESTED,
  data: { ...r },
  metadata: { requested_at: requestedAt.toISOString(), ...origin },
});

export interface StoredRedelivery extends Redelivery {
  requestedAt: string;
  position: bigint;
  refused?: string;
}

export interface StoredSignal {
  record: SignalRecord;
  acceptedAt: string;
  position: bigint;
  /** Why the dispatch could not be started, when the relay gave up. */
  refused?: string;
  /** The stream's revision, for appending a redelivery after it. */
  revision: bigint;
  redeliveries: StoredRedelivery[];
}

/**
 * The shapes this service has written for a signal's events, checked when read back: a stored
 * event that is not one of them is an UnreadableEvent, never taken on trust. Structural only
 * (the request rules may tighten; a stored signal stays readable), extra fields allowed.
 */
const Ordering = t.union([t.type({ instanceKey: t.string, orderWorkflowId: t.string }), t.type({ unordered: t.string })]);
const Plan = t.type({
  triggers: t.array(t.intersection([t.type({ triggerId: t.string, version: t.number }), t.partial({ ordering: Ordering })])),
  actions: t.array(
    t.intersection([
      t.type({
        deliveryId: t.string,
        triggerId: t.string,
        version: t.number,
        kind: t.keyof({ webhook: null, broker: null }),
        index: t.number,
        timeoutSecs: t.number,
      }),
      t.partial({ pace: t.string }),
    ]),
  ),
});
const Envelope = t.intersection([
  t.type({
    id: t.string,
    signal: t.keyof({ pre_save: null, post_save: null, pre_delete: null, post_delete: null }),
    app_label: t.string,
    model_name: t.string,
    instance: t.UnknownRecord,
    occurred_at: t.string,
  }),
  t.partial({ instance_key: t.string, previous: t.UnknownRecord }),
]);
const RecordCodec = t.intersection([
  t.type({
    signal: Envelope,
    plan: Plan,
    not_matched: t.array(
      t.intersection([
        t.type({
          trigger_id: t.string,
          version: t.number,
          reason: t.keyof({ inactive: null, another_signal: null, condition_false: null }),
        }),
        t.partial({ watches: t.array(t.string), clause: t.string, detail: t.string }),
      ]),
    ),
    not_matched_truncated: t.boolean,
  }),
  t.partial({ instance_dropped: t.literal(true) }),
]);
const RedeliveryCodec = t.type({
  number: t.number,
  workflow_id: t.string,
  mode: t.keyof({ as_dispatched: null, current: null }),
  delivery_ids: t.array(t.string),
  plan: Plan,
});

const RefusalCodec = t.intersection([t.type({ reason: t.string }), t.partial({ redelivery: t.number })]);

const decoded = <A>(codec: t.Decoder<unknown, A>, e: StoredEvent): A => {
  const result = codec.decode(e.data);
  if (result._tag === 'Left') throw new UnreadableEvent(e.streamId, e.revision, describeErrors(result.left));
  return result.right;
};

/** A `SignalAccepted` event's record. */
export const acceptedRecordOf = (e: StoredEvent): SignalRecord => decoded(RecordCodec, e);
/** A `SignalRedeliveryRequested` event's redelivery. */
export const redeliveryOf = (e: StoredEvent): Redelivery => decoded(RedeliveryCodec, e);

/** A signal stream's event, decoded, with what the stored signal keeps of where and when it was written. */
export type SignalEvent = { revision: bigint } & (
  | { type: typeof SIGNAL_ACCEPTED; record: SignalRecord; acceptedAt: string; position: bigint }
  | { type: typeof DISPATCH_REFUSED; reason: string; redelivery?: number }
  | { type: typeof REDELIVERY_REQUESTED; redelivery: Redelivery; requestedAt: string; position: bigint }
);

/** Decodes a signal stream's event; one of another type, or not in its shape, is an UnreadableEvent. */
export const readSignalEvent = (e: StoredEvent): SignalEvent => {
  switch (e.type) {
    case SIGNAL_ACCEPTED:
      return {
        type: SIGNAL_ACCEPTED,
        revision: e.revision,
        record: acceptedRecordOf(e),
        acceptedAt: String(e.metadata.accepted_at),
        position: e.position,
      };
    case DISPATCH_REFUSED:
      return { type: DISPATCH_REFUSED, revision: e.revision, ...decoded(RefusalCodec, e) };
    case REDELIVERY_REQUESTED:
      return {
        type: REDELIVERY_REQUESTED,
        revision: e.revision,
        redelivery: redeliveryOf(e),
        requestedAt: String(e.metadata.requested_at),
        position: e.position,
      };
    default:
      throw new UnreadableEvent(e.streamId, e.revision, `${e.type} is not a signal event`);
  }
};

/** A refusal names the redelivery it ends (none: the signal's own dispatch); the first one counts. */
const refuse = (s: StoredSignal, reason: string, number: number | undefined): StoredSignal => {
  if (number === undefined) return s.refused === undefined ? { ...s, refused: reason } : s;
  return {
    ...s,
    redeliveries: s.redeliveries.map((r) => (r.number === number && r.refused === undefined ? { ...r, refused: reason } : r)),
  };
};

/** Folds a signal's events: undefined until its acceptance. */
export const evolveSignal = (s: StoredSignal | undefined, e: SignalEvent): StoredSignal | undefined => {
  if (e.type === SIGNAL_ACCEPTED)
    return { record: e.record, acceptedAt: e.acceptedAt, position: e.position, revision: e.revision, redeliveries: [] };
  if (!s) return undefined;
  const moved = { ...s, revision: e.revision };
  if (e.type === DISPATCH_REFUSED) return refuse(moved, e.reason, e.redelivery);
  return { ...moved, redeliveries: [...s.redeliveries, { ...e.redelivery, requestedAt: e.requestedAt, position: e.position }] };
};

export const signalKind: StreamKind<StoredSignal | undefined, SignalEvent> = {
  initial: undefined,
  evolve: evolveSignal,
  read: readSignalEvent,
};

/** The stored signal from its stream's events, or undefined for none. */
export const storedSignalOf = (events: readonly StoredEvent[]): StoredSignal | undefined =>
  events.reduce((s: StoredSignal | undefined, e) => evolveSignal(s, readSignalEvent(e)), undefined);
