import { CreateQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { isJsonContentType } from '../../../src/destinations/broker-kit/aws';
import type { BrokerServers } from './index';
import { collect, Consumed, TestedBrokerType, unique } from './target';

/** What the AWS types share on moto: static credentials, the endpoint as their address. */
const AWS_KEYS = { aws_access_key_id: 'test', aws_secret_access_key: 'test-secret' };

export const awsConn = (s: BrokerServers) => ({ endpoint_url: s.moto.endpoint, region_name: s.moto.region, ...AWS_KEYS });
export const awsClient = (s: BrokerServers) => ({
  endpoint: s.moto.endpoint,
  region: s.moto.region,
  credentials: { accessKeyId: AWS_KEYS.aws_access_key_id, secretAccessKey: AWS_KEYS.aws_secret_access_key },
});

/** Where every AWS type lives: on moto, its endpoint the address. */
export const ON_MOTO: Pick<TestedBrokerType, 'server' | 'address'> = {
  server: 'moto',
  address: { key: 'endpoint_url', at: (host, port) => `http://${host}:${port}` },
};

export const isJsonType = (contentType: string | undefined) => isJsonContentType(contentType ?? '');

/** An SQS queue, a reader of it and its client (SNS and EventBridge targets read through a queue too). */
export const sqsQueue = async (servers: BrokerServers) => {
  const sqs = new SQSClient(awsClient(servers));
  const url = (await sqs.send(new CreateQueueCommand({ QueueName: unique('q') }))).QueueUrl!;
  const got: Consumed[] = [];
  const read = (count: number, timeoutMs = 15_000) =>
    collect(
      async () => {
        const r = await sqs.send(
          new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, MessageAttributeNames: ['All'], WaitTimeSeconds: 0 }),
        );
        return (r.Messages ?? []).map((m) => ({
          body: m.Body ?? '',
          deliveryId: m.MessageAttributes?.['delivery-id']?.StringValue,
          contentType: m.MessageAttributes?.['content-type']?.StringValue,
          traceparent: m.MessageAttributes?.traceparent?.StringValue,
        }));
      },
      count,
      timeoutMs,
      got,
    );
  const arn = async () =>
    (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
  const close = async () => sqs.destroy();
  return { url, read, arn, close };
};
