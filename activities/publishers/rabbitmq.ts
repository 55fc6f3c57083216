import { connect } from 'amqplib';
import { BROKER_KEYS } from '../../src/brokers/settings-keys';
import type { BrokerConnection, Publisher } from './port';
import { reader } from './settings';

/** Where one message goes: '' is the default exchange, which routes by queue name. */
export interface RabbitSettings { url: string; exchange: string; routingKey: string; queue: string | undefined }

/** AMQP short strings: a longer name can never be sent. */
const SHORT_STRING_BYTES = 255;

const settings: Publisher<RabbitSettings>['settings'] = (connDetails, params) => {
  const r = reader(BROKER_KEYS.rabbitmq, connDetails, params);
  const names = { exchange: r.params.optional('exchange'), routing_key: r.params.optional('routing_key'), queue: r.params.optional('queue') };
  const exchange = names.exchange ?? '';
  const routingKey = names.routing_key ?? names.queue ?? '';
  if (exchange === '' && routingKey === '') r.problem('params.queue', 'is required (or exchange and routing_key)');
  for (const [key, value] of Object.entries(names)) {
    if (Buffer.byteLength(value ?? '') > SHORT_STRING_BYTES) r.problem(`params.${key}`, `is longer than ${SHORT_STRING_BYTES} bytes (AMQP's limit)`);
  }
  // `conn_details` as an AMQP URL: `url` itself, or host/port/username/password/vhost.
  const [username, password, vhost] = [r.conn.optional('username'), r.conn.optional('password'), r.conn.optional('vhost')];
  const auth = username ? `${encodeURIComponent(username)}:${encodeURIComponent(password ?? '')}@` : '';
  const host = `${r.conn.optional('host') ?? '127.0.0.1'}:${r.conn.optional('port') ?? '5672'}`;
  const url = r.conn.optional('url') ?? `amqp://${auth}${host}${vhost ? `/${encodeURIComponent(vhost)}` : ''}`;
  return r.result({ url, exchange, routingKey, queue: names.queue });
};

/**
 * Persistent messages on a confirm channel: `publish` resolves once the broker confirmed.
 * A queue named for the default exchange is declared durable before its first message.
 */
const open = async (s: RabbitSettings): Promise<BrokerConnection<RabbitSettings>> => {
  const connection = await connect(s.url);
  const channel = await connection.createConfirmChannel();
  let lost = false;
  const markLost = () => { lost = true; };
  for (const emitter of [connection, channel]) { emitter.on('error', markLost); emitter.on('close', markLost); }
  const declared = new Set<string>();
  return {
    broken: () => lost,
    publish: async (target, message) => {
      if (target.queue && target.exchange === '' && !declared.has(target.queue)) {
        await channel.assertQueue(target.queue, { durable: true });
        declared.add(target.queue);
      }
      await new Promise<void>((resolve, reject) => {
        channel.publish(target.exchange, target.routingKey, Buffer.from(message.body), {
          persistent: true, messageId: message.deliveryId, contentType: message.contentType, timestamp: Math.floor(Date.now() / 1000),
          ...(message.traceparent ? { headers: { traceparent: message.traceparent } } : {}),
        }, (err) => (err ? reject(err instanceof Error ? err : new Error('the broker refused the message')) : resolve()));
      });
      return {};
    },
    close: () => connection.close(),
  };
};

export const rabbitmqPublisher: Publisher<RabbitSettings> = {
  brokerType: 'rabbitmq',
  settings,
  connectionKey: (s) => s.url,
  connect: open,
};
