import type { ActionKind } from '../dispatch/types';
import type { ActionLists } from '../destinations/port/channel';
import type { BrokerQueue } from '../destinations/brokers/queue';
import { Metrics, secondsSince } from '../observability/metrics';
import type { ActionArgs } from '../dispatch/activities';
import type { Attempt } from '../dispatch/types';

/** The metrics and the config's broker types by broker name: the only `broker_type` label values. */
export interface DeliveryMetrics {
  readonly metrics: Metrics;
  readonly brokerTypes: ReadonlyMap<string, string>;
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
const brokerTypeOf = (d: DeliveryMetrics, c: Counted) => {
  if (c.kind === 'webhook') return 'none';
  const name = (c.definition?.msg_broker_queues?.[c.args.plan.index] as BrokerQueue | undefined)?.name;
  return (name !== undefined && d.brokerTypes.get(name)) || 'unknown';
};

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
