import { PubSub, v1 } from '@google-cloud/pubsub';
import { testServers } from '../../servers';
import type { BrokerServers } from '../index';
import { BrokerTarget, collect, Consumed, TestedBrokerType, unique } from '../target';

const open = async (servers: BrokerServers = testServers().brokers): Promise<BrokerTarget> => {
  const { apiEndpoint, projectId } = servers.pubsub;
  const client = new PubSub({ projectId, apiEndpoint, emulatorMode: true, universeDomain: 'googleapis.com' });
  const [topic] = await client.createTopic(unique('t'));
  const [subscription] = await topic.createSubscription(unique('s'));
  const subscriber = new v1.SubscriberClient((await client.getClientConfig()) as ConstructorParameters<typeof v1.SubscriberClient>[0]);
  const got: Consumed[] = [];
  return {
    type: 'gcp_pubsub',
    broker: {
      broker_type: 'gcp_pubsub',
      conn_details: { project: projectId, topic: topic.name.split('/').pop()!, emulator_host: apiEndpoint },
      params: {},
    },
    read: (count, timeoutMs = 15_000) =>
      collect(
        async () => {
          const [r] = await subscriber.pull({ subscription: subscription.name, maxMessages: 10, returnImmediately: true });
          const ackIds = (r.receivedMessages ?? []).map((m) => m.ackId!);
          if (ackIds.length > 0) await subscriber.acknowledge({ subscription: subscription.name, ackIds });
          return (r.receivedMessages ?? []).map(({ message: m }) => ({
            body: Buffer.from(m!.data ?? '').toString('utf8'),
            deliveryId: m!.attributes?.['delivery-id'],
            contentType: m!.attributes?.['content-type'],
            traceparent: m!.attributes?.traceparent ?? undefined,
          }));
        },
        count,
        timeoutMs,
        got,
      ),
    close: async () => {
      await subscriber.close();
      await client.close();
    },
  };
};

const gcpPubsub: TestedBrokerType = {
  open,
  server: 'pubsub',
  address: { key: 'emulator_host', at: (host, port) => `${host}:${port}` },
  addressKeys: ['emulator_host', 'project'],
  privateSpelling: (port) => `0x7f.1:${port}`,
  refused: [
    {
      what: 'a topic that does not exist',
      broker: (b) => ({ ...b, conn_details: { ...b.conn_details, topic: unique('no-such-topic') } }),
    },
  ],
};
export default gcpPubsub;
