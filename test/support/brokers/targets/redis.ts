import { Redis } from 'ioredis';
import { testServers } from '../../servers';
import type { BrokerServers } from '../index';
import { BrokerTarget, collect, TestedBrokerType, unique } from '../target';

const open = async (servers: BrokerServers = testServers().brokers): Promise<BrokerTarget> => {
  const { url } = servers.redis;
  const stream = unique('s');
  const client = new Redis(url);
  return {
    type: 'redis',
    broker: { broker_type: 'redis', conn_details: { url }, params: { stream } },
    read: (count, timeoutMs = 15_000) =>
      collect(
        async () => {
          const entries = await client.xrange(stream, '-', '+');
          const fields = entries.map(([, f]) => Object.fromEntries(f.flatMap((v, i) => (i % 2 === 0 ? [[v, f[i + 1]!]] : []))));
          return fields.length >= count
            ? fields.map((f) => ({
                body: f.body ?? '',
                deliveryId: f['delivery-id'],
                contentType: f['content-type'],
                traceparent: f.traceparent,
              }))
            : [];
        },
        count,
        timeoutMs,
        [],
      ),
    close: async () => {
      client.disconnect();
    },
  };
};

/** A stream key that holds a string: XADD answers WRONGTYPE. */
const stringKey = async (b: { conn_details: Record<string, string> }) => {
  const key = unique('string');
  const client = new Redis(b.conn_details.url!);
  await client.set(key, 'not a stream');
  client.disconnect();
  return key;
};

const redis: TestedBrokerType = {
  open,
  server: 'redis',
  address: { key: 'url', at: (host, port) => `redis://${host}:${port}` },
  addressKeys: ['host', 'port', 'url'],
  privateSpelling: (port) => `redis://LocalHost.:${port}/0`,
  refused: [
    { what: 'a stream key that holds a string (XADD: WRONGTYPE)', broker: async (b) => ({ ...b, params: { stream: await stringKey(b) } }) },
  ],
};
export default redis;
