import type { ActionKind } from '../dispatch/types';
import type { ActionLists } from '../destinations/port/channel';
import { brokerTypeLabel, DestinationSettings } from '../destinations/registry';
import { Metrics, secondsSince } from '../observability/metrics';
import type { ActionArgs } from '../dispatch/activities';
import type { Attempt } from '../dispatch/types';

/** The metrics, and each kind's settings: the configured broker types are the only `broker_type` label values. */
export interface DeliveryMetrics {
  readonly metrics: Metrics;
  readonly destinations: DestinationSettings;
}

interface Counted {
  args: ActionArgs;
  kind: ActionKind;
  definition: ActionLists | undefined;
  result: Attempt;
  /** No attempt follows this one. */
  final: boolean;
  started: bigint;
  /** The signal's own dispatch, not a redelivery (whose latency from the signal means nothing). */
  ownDispatch: boolean;
}

/** `none` for webhooks; `unknown` when the definition or its broker is gone (the attempt fails). */
const brokerTypeOf = (d: DeliveryMetrics, c: Counted) => brokerTypeLabel(d.destinations, c.kind, c.definition, c.args.plan.index);

/**
 * One attempt: counted by outcome and timed. A delivery of the signal's own dispatch also
 * records the latency from the signal's `occurred_at` (the acceptance time when the caller gave
 * none; the workflow does not carry the acceptance time itself).
 */
export const countAttempt = (d: DeliveryMetrics | undefined, c: Counted) => {
  if (!d?.metrics.enabled) return;
  const outcome = c.result.outcome === 'delivered' ? 'delivered' : c.final ? 'failed' : 'retrying';
  d.metrics.attempt(c.kind, brokerTypeOf(d, c), outcome, secondsSince(c.started));
  const occurred = Date.parse(c.args.signal.occurred_at);
  if (outcome === 'delivered' && c.ownDispatch && Number.isFinite(occurred))
    d.metrics.deliveryLatency(c.kind, (Date.now() - occurred) / 1000);
};
