import { connect, SocketOptions } from 'amqplib';
import { BROKER_KEYS } from './settings-keys';
import type { BrokerConnection, Publisher } from './port';
import { closeThenDestroy, openOrDestroy } from './client-lifetime';
import { confirmChannels } from './rabbitmq-channels';
import { reader } from './settings';
import { PublishFailure } from './publish-error';

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
 * Persistent messages on confirm channels: `publish` resolves once the broker confirmed. Each
 * publish in flight has a channel of its own (`rabbitmq-channels.ts`), so a target the broker
 * refuses closes only its own. A queue named for the default exchange is declared durable
 * before its first message.
 */
const open = async (s: RabbitSettings, signal: AbortSignal): Promise<BrokerConnection<RabbitSettings>> => {
  // The socket's own signal: amqplib gives no other handle on a connection still opening.
  const socket = new AbortController();
  const connection = await openOrDestroy(signal, connect(s.url, { signal: socket.signal } as SocketOptions), () => socket.abort());
  let lost = false;
  const markLost = () => { lost = true; };
  connection.on('error', markLost);
  connection.on('close', markLost);
  const channels = confirmChannels(connection);
  const declared = new Set<string>();
  return {
    broken: () => lost,
    publish: (target, message) => channels.use(async (channel) => {
      if (target.queue && target.exchange === '' && !declared.has(target.queue)) {
        await channel.assertQueue(target.queue, { durable: true });
        declared.add(target.queue);
      }
      await new Promise<void>((resolve, reject) => {
        channel.publish(target.exchange, target.routingKey, Buffer.from(message.body), {
          persistent: true, messageId: message.deliveryId, contentType: message.contentType, timestamp: Math.floor(Date.now() / 1000),
          ...(message.traceparent ? { headers: { traceparent: message.traceparent } } : {}),
        }, (err) => (err ? reject(err instanceof Error ? err : new PublishFailure('the broker refused the message')) : resolve()));
      });
      return {};
    }),
    close: () => closeThenDestroy(() => connection.close(), () => socket.abort()),
  };
};

export const rabbitmqPublisher: Publisher<RabbitSettings> = {
  brokerType: 'rabbitmq',
  settings,
  connectionKey: (s) => s.url,
  connect: open,
};
