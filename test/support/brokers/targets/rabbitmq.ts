import { connect as amqpConnect } from 'amqplib';
import { testServers } from '../../servers';
import { BrokerTarget, collect, Consumed, TargetServers, TestedBrokerType, unique } from '../target';

const open = async (servers?: TargetServers): Promise<BrokerTarget> => {
  const url = servers?.rabbitUrl ?? testServers().rabbit.url;
  const queue = unique('q');
  const conn = await amqpConnect(url);
  const ch = await conn.createChannel();
  await ch.assertQueue(queue, { durable: true });
  const got: Consumed[] = [];
  return {
    type: 'rabbitmq',
    broker: { broker_type: 'rabbitmq', conn_details: { url }, params: { queue } },
    read: (count, timeoutMs = 15_000) =>
      collect(
        async () => {
          const m = await ch.get(queue, { noAck: true });
          return m
            ? [
                {
                  body: m.content.toString('utf8'),
                  deliveryId: m.properties.messageId as string,
                  contentType: m.properties.contentType as string,
                  traceparent: (m.properties.headers as Record<string, string> | undefined)?.traceparent,
                },
              ]
            : [];
        },
        count,
        timeoutMs,
        got,
      ),
    close: async () => {
      await conn.close();
    },
  };
};

/** No `server`: the RabbitMQ node is shared by all test files (its outage: test/integration/brokers/broker-restart.test.ts). */
const rabbitmq: TestedBrokerType = {
  open,
  address: { key: 'url', at: (host, port) => `amqp://guest:guest@${host}:${port}` },
  addressKeys: ['host', 'port', 'url'],
  privateSpelling: (port) => `amqp://guest:guest@2130706433:${port}`,
  refused: [
    {
      what: 'an exchange that does not exist',
      broker: (b) => ({ ...b, params: { exchange: unique('no-such-exchange'), routing_key: 'x' } }),
    },
    { what: 'a queue name the broker reserves (amq.)', broker: (b) => ({ ...b, params: { queue: unique('amq.x') } }) },
  ],
};
export default rabbitmq;
