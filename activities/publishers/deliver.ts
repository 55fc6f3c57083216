import { brokerOverridesOf, ConfigFile } from '../../src/config';
import type { BrokerQueue } from '../../src/triggers/codecs';
import { refusedOverrides } from '../../src/triggers/broker-overrides';
import { Attempt, Channel, fail, Prepared } from '../delivery/attempt';
import { Connections } from './connections';
import { publisherFor } from './registry';

type Brokers = NonNullable<ConfigFile['brokers']>;

/** The configured broker of that name: own entries only (a queue named `toString` finds none). */
const brokerOf = (brokers: Brokers, name: string) =>
  (Object.prototype.hasOwnProperty.call(brokers, name) ? brokers[name] : undefined);

/** A settings key as the trigger names it (`params` in the config is `parameters` in a trigger). */
const asTriggerPath = (path: string) => path.replace(/^params\./, 'parameters.');

/**
 * Publishes one message for a `msg_broker_queues` entry: the trigger's `conn_details` and
 * `parameters` merged over the configured broker's (the trigger's keys win, for the keys the
 * broker's `trigger_overrides` allows), decoded by the broker type's publisher; the body is
 * the bytes a webhook would carry; the delivery id goes with it.
 */
const send = (brokers: Brokers, connections: Connections) => async (p: Prepared<BrokerQueue>): Promise<Attempt> => {
  const queue = p.action;
  const broker = brokerOf(brokers, queue.name)!;
  const publisher = publisherFor(broker.broker_type);
  if (!publisher) throw fail('BrokerMissing', `broker ${queue.name}: broker_type ${broker.broker_type} is not supported by this build`);
  const conn = { ...p.renderMap(broker.conn_details), ...p.renderMap(queue.conn_details) };
  const params = { ...p.renderMap(broker.params), ...p.renderMap(queue.parameters) };
  const settings = publisher.settings(conn, params);
  if (!settings.ok) {
    const first = settings.errors[0]!;
    throw fail('BrokerParameters', `broker ${queue.name}: ${asTriggerPath(first.path)} ${first.message}`);
  }
  const message = { body: p.rendered.body, contentType: p.rendered.contentType, deliveryId: p.plan.deliveryId };
  try {
    await connections.publish(publisher, settings.value, message, p.plan.timeoutSecs * 1000);
    return { outcome: 'delivered' };
  } catch (e) {
    // Client messages name hosts and reasons, not credentials.
    return { outcome: 'retry', errorType: 'BrokerUnavailable', reason: `publish to ${queue.name} failed: ${(e as Error).message}` };
  }
};

/** A trigger's queue entries: the payload and every merged string map hold templates. */
export const brokerChannel = (brokers: Brokers, connections: Connections): Channel<BrokerQueue> => ({
  kind: 'broker',
  pick: (d, index) => d.msg_broker_queues[index],
  templated: (d, q) => {
    const b = brokerOf(brokers, q.name);
    if (!b) throw fail('BrokerMissing', `broker ${q.name} is not in the config`);
    // The config may have changed since the trigger was written: checked before any value is resolved.
    const refused = refusedOverrides(brokerOverridesOf(b), q)[0];
    if (refused) throw fail('BrokerOverrideRefused', refused.message);
    return [d.payload, q.conn_details, q.parameters, b.conn_details, b.params];
  },
  send: send(brokers, connections),
});
