import { Broker, brokerOverridesOf } from './config';
import type { BrokerQueue } from './queue';
import { refusedOverrides } from './overrides';
import type { Attempt } from '../../dispatch/types';
import { Channel, Entries, fail, payloadOf, Prepared } from '../port/channel';
import { Connections } from '../broker-kit/connections';
import type { OutboundMessage, Publisher } from '../broker-kit/port';
import { publisherFor } from './registry';
import { SpanKind } from '@opentelemetry/api';
import { inOutboundSpan } from '../../observability/outbound-span';
import type { TargetCheck } from '../port/target-guard';
import { describePublishError, ErrorShape } from '../broker-kit/publish-error';
import { BROKER_TARGET_REFUSED, checkHosts, untrustedHosts } from './target-guard';

/** The config's `brokers`, by name. */
export type Brokers = Readonly<Record<string, Broker>>;

/** The configured broker of that name: own entries only (a queue named `toString` finds none). */
export const brokerOf = (brokers: Brokers, name: string) =>
  Object.prototype.hasOwnProperty.call(brokers, name) ? brokers[name] : undefined;

/** A settings key as the trigger names it (`params` in the config is `parameters` in a trigger). */
const asTriggerPath = (path: string) => path.replace(/^params\./, 'parameters.');

/** What one attempt publishes, and where: built before the call, by the real send and by the dry run alike. */
export interface BrokerMessage {
  readonly publisher: Publisher<unknown>;
  readonly settings: unknown;
  /** The merged, rendered string maps the settings were read from. */
  readonly connDetails: Record<string, string>;
  readonly parameters: Record<string, string>;
  readonly message: OutboundMessage;
}

/**
 * The message of one `msg_broker_queues` entry: the trigger's `conn_details` and `parameters`
 * merged over the configured broker's (the trigger's keys win, for the keys the broker's
 * `trigger_overrides` allows), decoded by the broker type's publisher; the body is the bytes a
 * webhook would carry; the delivery id goes with it.
 */
export const brokerMessageOf = (brokers: Brokers, p: Prepared<BrokerQueue>): BrokerMessage => {
  const queue = p.action;
  const broker = brokerOf(brokers, queue.name)!;
  const publisher = publisherFor(broker.broker_type);
  if (!publisher) throw fail('BrokerMissing', `broker ${queue.name}: broker_type ${broker.broker_type} is not supported by this build`);
  const connDetails = { ...p.renderMap(broker.conn_details), ...p.renderMap(queue.conn_details) };
  const parameters = { ...p.renderMap(broker.params), ...p.renderMap(queue.parameters) };
  const settings = publisher.settings(connDetails, parameters);
  if (!settings.ok) {
    const first = settings.errors[0]!;
    throw fail('BrokerParameters', `broker ${queue.name}: ${asTriggerPath(first.path)} ${first.message}`);
  }
  const message = { body: p.rendered.body, contentType: p.rendered.contentType, deliveryId: p.plan.deliveryId };
  return { publisher, settings: settings.value, connDetails, parameters, message };
};

export interface BrokerGuard {
  /** As the webhook transport's: off means hosts the operator did not write must be public. */
  readonly allowPrivateTargets: boolean;
  readonly checkTarget?: (url: string) => Promise<TargetCheck>;
}

/** The private-target guard on a message's hosts that a trigger set or the signal's data chose; undefined when it may go. */
export const brokerTargetProblem = async (
  brokers: Brokers,
  p: Prepared<BrokerQueue>,
  m: BrokerMessage,
  guard: BrokerGuard,
): Promise<Attempt | undefined> => {
  if (guard.allowPrivateTargets) return undefined;
  const hosts = untrustedHosts(brokerOf(brokers, p.action.name)!, p.action, m);
  if (hosts.length === 0) return undefined;
  const check = await checkHosts(hosts, guard.checkTarget);
  if (check.kind === 'refused') return { outcome: 'fail', errorType: 'TargetRefused', reason: BROKER_TARGET_REFUSED };
  if (check.kind === 'unresolved')
    return { outcome: 'retry', errorType: 'BrokerUnavailable', reason: `publish to ${p.action.name} failed: ${check.reason}` };
  return undefined;
};

/** Publishes one message; resolves once the broker confirmed it. A PRODUCER span, its `traceparent` on the message. */
const send =
  (brokers: Brokers, connections: Connections, guard: BrokerGuard) =>
  async (p: Prepared<BrokerQueue>): Promise<Attempt> => {
    const m = brokerMessageOf(brokers, p);
    const refused = await brokerTargetProblem(brokers, p, m, guard);
    if (refused) return refused;
    const { publisher, settings, message } = m;
    const attributes = { 'messaging.system': publisher.brokerType, 'messaging.operation.type': 'send' };
    return inOutboundSpan(`send ${publisher.brokerType}`, SpanKind.PRODUCER, attributes, (trace) =>
      publish(connections, p, publisher, settings, trace.traceparent ? { ...message, traceparent: trace.traceparent } : message),
    );
  };

const publish = async <S>(
  connections: Connections,
  p: Prepared<BrokerQueue>,
  publisher: Publisher<S>,
  settings: S,
  message: OutboundMessage,
): Promise<Attempt> => {
  try {
    await connections.publish(publisher, settings, message, p.plan.timeoutSecs * 1000);
    return { outcome: 'delivered' };
  } catch (e) {
    const reason = `publish to ${p.action.name} failed: ${describePublishError(e, publisher.describeError)}`;
    if (e !== null && typeof e === 'object' && publisher.refusedForGood?.(e as ErrorShape))
      return { outcome: 'fail', errorType: 'BrokerRefused', reason };
    return { outcome: 'retry', errorType: 'BrokerUnavailable', reason };
  }
};

/** A trigger's queue entries: the payload (the entry's own, else the trigger's) and every merged string map hold templates. */
export const brokerEntries = (brokers: Brokers): Entries<BrokerQueue> => ({
  kind: 'broker',
  // The trigger codec decoded each entry with queueCodec when the trigger was written.
  pick: (d, index) => d.msg_broker_queues[index] as BrokerQueue | undefined,
  payload: payloadOf,
  templated: (d, q) => {
    const b = brokerOf(brokers, q.name);
    if (!b) throw fail('BrokerMissing', `broker ${q.name} is not in the config`);
    // The config may have changed since the trigger was written: checked before any value is resolved.
    const refused = refusedOverrides(brokerOverridesOf(b), q)[0];
    if (refused) throw fail('BrokerOverrideRefused', refused.message);
    return [payloadOf(d, q), q.conn_details, q.parameters, b.conn_details, b.params];
  },
});

export const brokerChannel = (brokers: Brokers, connections: Connections, guard: BrokerGuard): Channel<BrokerQueue> => ({
  ...brokerEntries(brokers),
  send: send(brokers, connections, guard),
});
