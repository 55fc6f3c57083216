import { connect } from 'amqplib';
import type { FieldError } from '../../src/validation/field-errors';
import type { BrokerConnection, Publisher } from './port';

/** Where one message goes: '' is the default exchange, which routes by queue name. */
export interface RabbitSettings { url: string; exchange: string; routingKey: string; queue: string | undefined }

/** `conn_details` as an AMQP URL: `url` itself, or host/port/username/password/vhost. */
export const amqpUrlOf = (conn: Readonly<Record<string, string>>): string => {
  if (conn.url) return conn.url;
  const auth = conn.username ? `${encodeURIComponent(conn.username)}:${encodeURIComponent(conn.password ?? '')}@` : '';
  const vhost = conn.vhost ? `/${encodeURIComponent(conn.vhost)}` : '';
  return `amqp://${auth}${conn.host ?? '127.0.0.1'}:${conn.port ?? '5672'}${vhost}`;
};

/** AMQP short strings: a longer name can never be sent. */
const SHORT_STRING_BYTES = 255;

const settings: Publisher<RabbitSettings>['settings'] = (conn, params) => {
  const exchange = params.exchange ?? '';
  const routingKey = params.routing_key ?? params.queue ?? '';
  const errors: FieldError[] = [];
  if (exchange === '' && routingKey === '') errors.push({ path: 'params.queue', message: 'is required (or exchange and routing_key)' });
  for (const key of ['exchange', 'routing_key', 'queue'] as const) {
    if (Buffer.byteLength(params[key] ?? '') > SHORT_STRING_BYTES) errors.push({ path: `params.${key}`, message: `is longer than ${SHORT_STRING_BYTES} bytes (AMQP's limit)` });
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: { url: amqpUrlOf(conn), exchange, routingKey, queue: params.queue } };
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
