import { testServers } from '../../servers';
import { awsConn, ON_MOTO, sqsQueue } from '../aws-target';
import type { BrokerServers } from '../index';
import { BrokerTarget, TestedBrokerType, unique } from '../target';

const open = async (servers: BrokerServers = testServers().brokers): Promise<BrokerTarget> => {
  const q = await sqsQueue(servers);
  return {
    type: 'aws_sqs',
    broker: { broker_type: 'aws_sqs', conn_details: awsConn(servers), params: { queue_url: q.url } },
    read: q.read,
    close: q.close,
  };
};

const awsSqs: TestedBrokerType = {
  open,
  ...ON_MOTO,
  addressKeys: ['endpoint_url', 'queue_url'],
  privateSpelling: (port) => `http://[::ffff:127.0.0.1]:${port}`,
  refused: [
    {
      what: 'a queue that does not exist',
      broker: (b) => ({ ...b, params: { queue_url: b.params.queue_url!.replace(/[^/]+$/, unique('no-such-queue')) } }),
    },
  ],
};
export default awsSqs;
