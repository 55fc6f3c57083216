import type { BrokerKeys } from '../broker-kit/settings-keys';
import type { BrokerConnection, Publisher } from '../broker-kit/port';
import { openRedis, type RedisConnection } from './client';
import { reader } from '../broker-kit/settings';

/** `channel`: PUBLISH, as the origin project does. `stream`: XADD, a durable alternative. */
export interface RedisSettings {
  connection: RedisConnection;
  target: { channel: string } | { stream: string };
}

/** The keys a redis broker reads (see ../broker-kit/settings-keys.ts). */
const REDIS_KEYS = {
  conn_details: {
    url: {
      requiredUnless: 'host',
      use: 'secret',
      address: 'url',
      description: 'redis://user:password@host:port/db, instead of host, port, db, username and password',
    },
    host: { requiredUnless: 'url', address: 'host', description: 'Without url' },
    port: { default: '6379', address: 'port', format: 'a port number', description: 'Without url' },
    db: { default: '0', format: 'a whole number', description: 'Without url' },
    username: { description: 'Without url' },
    password: { use: 'secret', description: 'Without url' },
  },
  params: {
    channel: { requiredUnless: 'stream', description: 'PUBLISH to this channel (exactly one of channel and stream)' },
    stream: {
      requiredUnless: 'channel',
      description: 'XADD to this stream, with the fields body, delivery-id and content-type: durable (exactly one of channel and stream)',
    },
  },
} as const satisfies BrokerKeys;

const settings: Publisher<RedisSettings>['settings'] = (connDetails, params) => {
  const r = reader(REDIS_KEYS, connDetails, params);
  const url = r.conn.optional('url');
  const host = url === undefined ? r.conn.required('host') : undefined;
  const [portText, dbText] = [r.conn.optional('port') ?? '6379', r.conn.optional('db') ?? '0'];
  const [port, db] = [Number(portText), Number(dbText)];
  if (r.literal(portText) && !(Number.isInteger(port) && port >= 1 && port <= 65535))
    r.problem('conn_details.port', 'must be a port number');
  if (r.literal(dbText) && !(Number.isInteger(db) && db >= 0)) r.problem('conn_details.db', 'must be a whole number');
  const channel = r.params.optional('channel');
  const stream = r.params.optional('stream');
  if ((channel === undefined) === (stream === undefined)) r.problem('params.channel', 'give exactly one of channel or stream');
  const username = r.conn.optional('username');
  const password = r.conn.optional('password');
  return r.result({
    connection:
      url !== undefined ? { url } : { host: host ?? '', port, db, ...(username ? { username } : {}), ...(password ? { password } : {}) },
    target: channel !== undefined ? { channel } : { stream: stream ?? '' },
  });
};

/** One ioredis client per server (`client.ts`). */
const open = async (s: RedisSettings, signal: AbortSignal): Promise<BrokerConnection<RedisSettings>> => {
  const client = await openRedis(s.connection, signal);
  return {
    broken: () => client.status === 'end',
    publish: async (target, message) => {
      if ('channel' in target.target) {
        const receivers = await client.publish(target.target.channel, message.body);
        return { brokerMessageId: `receivers:${receivers}` };
      }
      // A pub/sub message is the body alone; a stream entry has fields, `traceparent` among them when tracing is on.
      const trace = message.traceparent ? ['traceparent', message.traceparent] : [];
      const id = await client.xadd(
        target.target.stream,
        '*',
        'body',
        message.body,
        'delivery-id',
        message.deliveryId,
        'content-type',
        message.contentType,
        ...trace,
      );
      return id ? { brokerMessageId: id } : {};
    },
    close: async () => {
      client.disconnect();
    },
  };
};

/** A reply error starts with its class (ERR, WRONGTYPE, NOAUTH, ...); the rest is the server's text. */
const replyClass = (message: unknown) => (typeof message === 'string' ? /^[A-Z]{2,20}(?=\s|$)/.exec(message)?.[0] : undefined);

export const redisPublisher: Publisher<RedisSettings> = {
  brokerType: 'redis',
  keys: REDIS_KEYS,
  describeError: (e) =>
    e.name === 'ReplyError' ? `answered with an error${replyClass(e.message) ? ` (${replyClass(e.message)})` : ''}` : undefined,
  settings,
  connectionKey: (s) => JSON.stringify(s.connection),
  connect: open,
};
