import type { BrokerKeys } from '../broker-kit/settings-keys';
import type { BrokerConnection, Publisher } from '../broker-kit/port';
import { confirmedPublish, openAmqp } from './connection';
import { reader } from '../broker-kit/settings';

/** Where one message goes: '' is the default exchange, which routes by queue name. */
export interface RabbitSettings {
  url: string;
  exchange: string;
  routingKey: string;
  queue: string | undefined;
}

/** AMQP short strings: a longer name can never be sent. */
const SHORT_STRING_BYTES = 255;

/** The keys a rabbitmq broker reads (see ../broker-kit/settings-keys.ts). */
const RABBITMQ_KEYS = {
  conn_details: {
    url: {
      use: 'secret',
      address: 'url',
      description: 'amqp://user:password@host:port/vhost, instead of host, port, username, password and vhost',
    },
    host: { default: '127.0.0.1', address: 'host', description: 'Without url' },
    port: { default: '5672', address: 'port', description: 'Without url' },
    username: { description: 'Without url' },
    password: { use: 'secret', description: 'Without url' },
    vhost: { description: "Without url (default: the broker's default vhost)" },
  },
  params: {
    queue: {
      requiredUnless: 'exchange or routing_key',
      format: 'at most 255 bytes',
      description: 'Published through the default exchange to this queue (declared durable before the first message)',
    },
    exchange: { format: 'at most 255 bytes', description: 'Published to this exchange with routing_key (default: the default exchange)' },
    routing_key: { format: 'at most 255 bytes', description: 'With exchange (default: queue)' },
  },
} as const satisfies BrokerKeys;

const settings: Publisher<RabbitSettings>['settings'] = (connDetails, params) => {
  const r = reader(RABBITMQ_KEYS, connDetails, params);
  const names = {
    exchange: r.params.optional('exchange'),
    routing_key: r.params.optional('routing_key'),
    queue: r.params.optional('queue'),
  };
  const exchange = names.exchange ?? '';
  const routingKey = names.routing_key ?? names.queue ?? '';
  if (exchange === '' && routingKey === '') r.problem('params.queue', 'is required (or exchange and routing_key)');
  for (const [key, value] of Object.entries(names)) {
    if (Buffer.byteLength(value ?? '') > SHORT_STRING_BYTES)
      r.problem(`params.${key}`, `is longer than ${SHORT_STRING_BYTES} bytes (AMQP's limit)`);
  }
  // `conn_details` as an AMQP URL: `url` itself, or host/port/username/password/vhost.
  const [username, password, vhost] = [r.conn.optional('username'), r.conn.optional('password'), r.conn.optional('vhost')];
  const auth = username ? `${encodeURIComponent(username)}:${encodeURIComponent(password ?? '')}@` : '';
  const host = `${r.conn.optional('host') ?? '127.0.0.1'}:${r.conn.optional('port') ?? '5672'}`;
  const url = r.conn.optional('url') ?? `amqp://${auth}${host}${vhost ? `/${encodeURIComponent(vhost)}` : ''}`;
  return r.result({ url, exchange, routingKey, queue: names.queue });
};

/**
 * Persistent messages on confirm channels (`connection.ts`): `publish` resolves once the broker
 * confirmed. A queue named for the default exchange is declared durable before its first message.
 */
const open = async (s: RabbitSettings, signal: AbortSignal): Promise<BrokerConnection<RabbitSettings>> => {
  const amqp = await openAmqp(s.url, signal);
  const declared = new Set<string>();
  return {
    broken: amqp.broken,
    publish: (target, message) =>
      amqp.channels.use(async (channel) => {
        if (target.queue && target.exchange === '' && !declared.has(target.queue)) {
          await channel.assertQueue(target.queue, { durable: true });
          declared.add(target.queue);
        }
        await confirmedPublish(channel, target.exchange, target.routingKey, Buffer.from(message.body), {
          persistent: true,
          messageId: message.deliveryId,
          contentType: message.contentType,
          timestamp: Math.floor(Date.now() / 1000),
          ...(message.traceparent ? { headers: { traceparent: message.traceparent } } : {}),
        });
        return {};
      }),
    close: amqp.close,
  };
};

/** AMQP reply codes by name: a channel or connection the server closed carries one. */
const AMQP_REPLY: Readonly<Record<number, string>> = {
  311: 'content too large',
  312: 'no route',
  313: 'no consumers',
  320: 'connection forced',
  402: 'invalid path',
  403: 'access refused',
  404: 'not found (the exchange or queue does not exist)',
  405: 'resource locked',
  406: 'precondition failed',
  501: 'frame error',
  502: 'syntax error',
  503: 'command invalid',
  504: 'channel error',
  505: 'unexpected frame',
  506: 'resource error',
  530: 'not allowed',
  540: 'not implemented',
  541: 'internal error',
};

export const rabbitmqPublisher: Publisher<RabbitSettings> = {
  brokerType: 'rabbitmq',
  keys: RABBITMQ_KEYS,
  settings,
  describeError: (e) => (typeof e.code === 'number' && AMQP_REPLY[e.code] ? `refused it: ${e.code} ${AMQP_REPLY[e.code]}` : undefined),
  connectionKey: (s) => s.url,
  connect: open,
};
