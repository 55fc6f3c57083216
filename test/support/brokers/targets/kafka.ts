import { Kafka, logLevel } from '../../../../src/destinations/kafka/kafkajs';
import { testServers } from '../../servers';
import type { BrokerServers } from '../index';
import { BrokerTarget, collect, Consumed, TestedBrokerType, unique } from '../target';

const open = async (servers: BrokerServers = testServers().brokers): Promise<BrokerTarget> => {
  const { brokers } = servers.kafka;
  const topic = unique('t');
  const client = new Kafka({ clientId: 'test-consumer', brokers, logLevel: logLevel.NOTHING });
  const admin = client.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }], waitForLeaders: true });
  await admin.disconnect();
  const consumer = client.consumer({ groupId: unique('g') });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const arrived: Consumed[] = [];
  const got: Consumed[] = [];
  void consumer.run({
    eachMessage: async ({ message: m }) => {
      arrived.push({
        body: m.value?.toString('utf8') ?? '',
        deliveryId: m.headers?.['delivery-id']?.toString(),
        contentType: m.headers?.['content-type']?.toString(),
        traceparent: m.headers?.traceparent?.toString(),
      });
    },
  });
  return {
    type: 'kafka',
    broker: { broker_type: 'kafka', conn_details: { bootstrap_servers: brokers.join(',') }, params: { topic } },
    read: (count, timeoutMs = 30_000) => collect(async () => arrived.splice(0), count, timeoutMs, got),
    close: () => consumer.disconnect(),
  };
};

const kafka: TestedBrokerType = {
  open,
  server: 'kafka',
  address: { key: 'bootstrap_servers', at: (host, port) => `${host}:${port}` },
  addressKeys: ['bootstrap_servers'],
  privateSpelling: () => '169.254.169.254:9092',
  refused: [{ what: 'a topic name Kafka refuses', broker: (b) => ({ ...b, params: { topic: unique('bad topic!') } }) }],
};
export default kafka;
