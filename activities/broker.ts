import type { DeliveryReceipt } from '../src/dispatch/types';
import { brokerOverridesOf, ConfigFile } from '../src/config';
import { refusedOverrides } from '../src/triggers/broker-overrides';
import { Logger } from '../src/logger';
import { ActionArgs, ActionDeps, attemptOf, failure, loadAction, rendering } from './action';
import { RabbitPublisher } from './rabbitmq';
import { renderBody, renderStringMap } from './render';
import { backoffMs } from './retry';

export interface BrokerDeps extends ActionDeps {
  readonly brokers: NonNullable<ConfigFile['brokers']>;
  readonly rabbit: RabbitPublisher;
  readonly log: Logger;
}

/** The configured broker of that name: own entries only (a queue named `toString` finds none). */
const brokerOf = (brokers: BrokerDeps['brokers'], name: string) =>
  (Object.prototype.hasOwnProperty.call(brokers, name) ? brokers[name] : undefined);

/** `conn_details` as an AMQP URL: `url` itself, or host/port/username/password/vhost. */
export const amqpUrlOf = (conn: Record<string, string>): string => {
  if (conn.url) return conn.url;
  const auth = conn.username ? `${encodeURIComponent(conn.username)}:${encodeURIComponent(conn.password ?? '')}@` : '';
  const vhost = conn.vhost ? `/${encodeURIComponent(conn.vhost)}` : '';
  return `amqp://${auth}${conn.host ?? '127.0.0.1'}:${conn.port ?? '5672'}${vhost}`;
};

/**
 * Publishes one message for a `msg_broker_queues` entry: the trigger's `conn_details` and
 * `parameters` merged over the configured broker's (the trigger's keys win, for the keys the
 * broker's `trigger_overrides` allows; any other key fails the action); the body is the
 * bytes a webhook would carry; the delivery id is the message id.
 */
export const createPublishToBroker = (deps: BrokerDeps) => async (args: ActionArgs): Promise<DeliveryReceipt> => {
  const { plan, signal, retry } = args;
  const attempt = attemptOf(args);
  const { definition, dynamic } = await loadAction(deps, args, attempt, (d) => {
    const q = d.msg_broker_queues[plan.index];
    const b = q && brokerOf(deps.brokers, q.name);
    if (!q) return undefined;
    if (!b) throw failure(`broker ${q.name} is not in the config`, 'BrokerMissing', { attempt }, false);
    // The config may have changed since the trigger was written: checked before any value is resolved.
    const refused = refusedOverrides(brokerOverridesOf(b), q)[0];
    if (refused) throw failure(refused.message, 'BrokerOverrideRefused', { attempt }, false);
    return [d.payload, q.conn_details, q.parameters, b.conn_details, b.params];
  });
  const queue = definition.msg_broker_queues[plan.index]!;
  const broker = brokerOf(deps.brokers, queue.name)!;
  const warnings: string[] = [];
  const render = (m: Record<string, string> | undefined) => renderStringMap(m, signal.instance, dynamic, warnings);
  const { conn, params, rendered } = rendering(attempt, () => ({
    conn: { ...render(broker.conn_details), ...render(queue.conn_details) },
    params: { ...render(broker.params), ...render(queue.parameters) },
    rendered: renderBody(definition.payload, signal, plan.triggerId, dynamic),
  }));
  const exchange = params.exchange ?? '';
  const routingKey = params.routing_key ?? params.queue ?? '';
  if (exchange === '' && routingKey === '') throw failure(`broker ${queue.name}: parameters need queue, or exchange and routing_key`, 'BrokerParameters', { attempt }, false);
  // AMQP short strings: a longer name (perhaps only once rendered) can never be sent, so no retry.
  const tooLong = (['exchange', 'routing_key', 'queue'] as const).find((k) => Buffer.byteLength(params[k] ?? '') > 255);
  if (tooLong) throw failure(`broker ${queue.name}: parameters.${tooLong} is longer than 255 bytes (AMQP's limit)`, 'BrokerParameters', { attempt }, false);
  try {
    await deps.rabbit.publish({
      url: amqpUrlOf(conn), exchange, routingKey, queue: params.queue, body: rendered.body,
      contentType: rendered.contentType, messageId: plan.deliveryId, timeoutMs: plan.timeoutSecs * 1000,
    });
  } catch (e) {
    // amqplib's messages name hosts and reasons, not credentials.
    const reason = `publish to ${queue.name} failed: ${(e as Error).message}`;
    deps.log.warn('broker attempt failed', { delivery_id: plan.deliveryId, attempt, reason });
    throw failure(reason, 'BrokerUnavailable', { attempt }, true, backoffMs(attempt, retry));
  }
  deps.log.info('broker message published', { delivery_id: plan.deliveryId, attempt, broker: queue.name });
  return { attempt, warnings: [...rendered.warnings, ...warnings] };
};
