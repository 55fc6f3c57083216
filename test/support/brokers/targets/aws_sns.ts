import { CreateTopicCommand, SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import { testServers } from '../../servers';
import { awsClient, awsConn, ON_MOTO, sqsQueue } from '../aws-target';
import type { BrokerServers } from '../index';
import { BrokerTarget, TestedBrokerType, unique } from '../target';

/** A topic with a queue subscribed to it (raw delivery), which the target reads. */
const open = async (servers: BrokerServers = testServers().brokers): Promise<BrokerTarget> => {
  const sns = new SNSClient(awsClient(servers));
  const topicArn = (await sns.send(new CreateTopicCommand({ Name: unique('t') }))).TopicArn!;
  const q = await sqsQueue(servers);
  await sns.send(
    new SubscribeCommand({ TopicArn: topicArn, Protocol: 'sqs', Endpoint: await q.arn(), Attributes: { RawMessageDelivery: 'true' } }),
  );
  return {
    type: 'aws_sns',
    broker: { broker_type: 'aws_sns', conn_details: awsConn(servers), params: { topic_arn: topicArn } },
    read: q.read,
    close: async () => {
      sns.destroy();
      await q.close();
    },
  };
};

const awsSns: TestedBrokerType = {
  open,
  ...ON_MOTO,
  addressKeys: ['endpoint_url', 'topic_arn'],
  privateSpelling: () => 'http://10.0.0.1/',
  refused: [
    {
      what: 'a topic that does not exist',
      broker: (b) => ({ ...b, params: { topic_arn: b.params.topic_arn!.replace(/[^:]+$/, unique('no-such-topic')) } }),
    },
  ],
};
export default awsSns;
