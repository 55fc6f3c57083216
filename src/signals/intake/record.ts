import { DispatchPlan, SignalEnvelope, workflowIdOf } from '../../dispatch/types';
import { EventStore, WrongExpectedRevision } from '../../event-store/port';
import type { Matched } from './match';
import { acceptedEvent, SignalOrigin, SignalRecord, signalStreamOf, storedSignalOf } from '../../model/signals/signal-record';

/** What `POST /api/signals` answers for one accepted signal. */
export interface Accepted {
  id: string;
  workflow_id: string;
  /** The id was accepted before (and is still retained): nothing new was stored. */
  duplicate: boolean;
  /** `queued` until the relay starts its dispatch; `unmatched` never dispatches. */
  state: 'queued' | 'unmatched';
}

type Outcome = { ok: true; value: Accepted } | { ok: false; reason: unknown };

const stateOf = (plan: DispatchPlan) => (plan.actions.length > 0 ? ('queued' as const) : ('unmatched' as const));

/**
 * What is kept of a signal: the whole of it, or, when it matched no trigger (and the config does
 * not say to keep them), everything but its instance (and its previous state). Which triggers it did not match and why
 * (what `GET /api/signals/<id>` explains) is kept either way.
 */
const recordOf = (signal: SignalEnvelope, matched: Matched, keepUnmatchedInstances: boolean): SignalRecord => {
  if (matched.plan.actions.length > 0 || keepUnmatchedInstances) return { signal, ...matched };
  const { previous: _previous, ...kept } = signal;
  return { signal: { ...kept, instance: {} }, ...matched, instance_dropped: true };
};

/**
 * Stores each signal as the first event of its own stream (`no_stream`: a stream that exists
 * means the id was accepted before). The store commits appends of the same moment together,
 * so a batch costs one durable write.
 */
export const recordSignals = (
  store: EventStore,
  signals: readonly SignalEnvelope[],
  matches: readonly Matched[],
  now: Date,
  origin: SignalOrigin = {},
  keepUnmatchedInstances = false,
) =>
  Promise.all(
    signals.map(async (signal, i): Promise<Outcome> => {
      const matched = matches[i]!;
      const plan = matched.plan;
      const accepted = { id: signal.id, workflow_id: workflowIdOf(signal.id) };
      try {
        const record = recordOf(signal, matched, keepUnmatchedInstances);
        await store.append(signalStreamOf(signal.id), [acceptedEvent(record, now, origin)], 'no_stream');
        return { ok: true, value: { ...accepted, duplicate: false, state: stateOf(plan) } };
      } catch (e) {
        if (!(e instanceof WrongExpectedRevision)) return { ok: false, reason: e };
        const before = storedSignalOf(await store.read(signalStreamOf(signal.id)).catch(() => []));
        return { ok: true, value: { ...accepted, duplicate: true, state: before ? stateOf(before.record.plan) : 'queued' } };
      }
    }),
  );
