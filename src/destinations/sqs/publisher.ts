import type { BrokerKeys } from '../broker-kit/settings-keys';
import type { BrokerConnection, Publisher } from '../broker-kit/port';
import { reader } from '../broker-kit/settings';
import {
  AWS_CONN,
  awsClientOptions,
  AwsConnection,
  awsPublisher,
  fifoId,
  MESSAGE_GROUP_ID,
  messageAttributes,
  readAwsConnection,
} from '../broker-kit/aws';
import { capAnswers } from '../broker-kit/answer-cap';

/** A queue by URL (preferred) or by name; FIFO queues take a message group (a template is fine). */
export interface SqsSettings {
  aws: AwsConnection;
  queue: { url: string } | { name: string };
  messageGroupId: string | undefined;
}

/** The keys a aws_sqs broker reads (see ../broker-kit/settings-keys.ts). */
const SQS_KEYS = {
  conn_details: AWS_CONN,
  params: {
    queue_url: { requiredUnless: 'queue_name', address: 'destination', description: "The queue's URL (preferred over queue_name)" },
    queue_name: { requiredUnless: 'queue_url', description: 'The queue by name, looked up once per connection' },
    message_group_id: MESSAGE_GROUP_ID,
  },
} as const satisfies BrokerKeys;

const settings: Publisher<SqsSettings>['settings'] = (connDetails, params) => {
  const r = reader(SQS_KEYS, connDetails, params);
  const aws = readAwsConnection(r.conn);
  const url = r.params.optional('queue_url');
  const name = url === undefined ? r.params.required('queue_name') : undefined;
  const messageGroupId = r.params.optional('message_group_id');
  const fifo = (url ?? name ?? '').endsWith('.fifo');
  if (fifo && messageGroupId === undefined) r.problem('params.message_group_id', 'is required for a FIFO queue');
  return r.result({ aws, queue: url !== undefined ? { url } : { name: name ?? '' }, messageGroupId });
};

/**
 * The endpoint is the configured one (or AWS's for the region), never the queue URL's origin: by
 * default the SDK sends to whatever host a queue URL names when no endpoint is set.
 */
export const sqsClientOptions = (aws: AwsConnection) => ({ ...awsClientOptions(aws), useQueueUrlAsEndpoint: false });

/** SendMessage with the body and the attributes `delivery-id` and `content-type`; on FIFO queues the delivery id deduplicates. */
const open = async (s: SqsSettings): Promise<BrokerConnection<SqsSettings>> => {
  const { SQSClient, SendMessageCommand, GetQueueUrlCommand } = await import('@aws-sdk/client-sqs');
  const client = capAnswers(new SQSClient(sqsClientOptions(s.aws)));
  const urls = new Map<string, string>();
  const urlOf = async (queue: SqsSettings['queue']) => {
    if ('url' in queue) return queue.url;
    let url = urls.get(queue.name);
    if (!url) {
      url = (await client.send(new GetQueueUrlCommand({ QueueName: queue.name }))).QueueUrl ?? '';
      urls.set(queue.name, url);
    }
    return url;
  };
  return {
    broken: () => false,
    publish: async (target, message) => {
      const QueueUrl = await urlOf(target.queue);
      const fifo = QueueUrl.endsWith('.fifo');
      const sent = await client.send(
        new SendMessageCommand({
          QueueUrl,
          MessageBody: message.body,
          MessageAttributes: messageAttributes(message.deliveryId, message.contentType, message.traceparent),
          ...(fifo ? { MessageDeduplicationId: fifoId(message.deliveryId), MessageGroupId: target.messageGroupId } : {}),
        }),
      );
      return sent.MessageId ? { brokerMessageId: sent.MessageId } : {};
    },
    close: async () => {
      client.destroy();
    },
  };
};

export const sqsPublisher = awsPublisher<SqsSettings>({
  brokerType: 'aws_sqs',
  keys: SQS_KEYS,
  settings,
  connect: open,
});
