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

/** A topic by ARN; FIFO topics take a message group (a template is fine). */
export interface SnsSettings {
  aws: AwsConnection;
  topicArn: string;
  messageGroupId: string | undefined;
}

/** The keys a aws_sns broker reads (see ../broker-kit/settings-keys.ts). */
const SNS_KEYS = {
  conn_details: AWS_CONN,
  params: {
    topic_arn: { required: true, address: 'destination', description: 'The topic' },
    message_group_id: MESSAGE_GROUP_ID,
  },
} as const satisfies BrokerKeys;

const settings: Publisher<SnsSettings>['settings'] = (connDetails, params) => {
  const r = reader(SNS_KEYS, connDetails, params);
  const aws = readAwsConnection(r.conn);
  const topicArn = r.params.required('topic_arn');
  const messageGroupId = r.params.optional('message_group_id');
  if (topicArn.endsWith('.fifo') && messageGroupId === undefined) r.problem('params.message_group_id', 'is required for a FIFO topic');
  return r.result({ aws, topicArn, messageGroupId });
};

/** Publish with the body and the attributes `delivery-id` and `content-type`; on FIFO topics the delivery id deduplicates. */
const open = async (s: SnsSettings): Promise<BrokerConnection<SnsSettings>> => {
  const { SNSClient, PublishCommand } = await import('@aws-sdk/client-sns');
  const client = capAnswers(new SNSClient(awsClientOptions(s.aws)));
  return {
    broken: () => false,
    publish: async (target, message) => {
      const fifo = target.topicArn.endsWith('.fifo');
      const sent = await client.send(
        new PublishCommand({
          TopicArn: target.topicArn,
          Message: message.body,
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

export const snsPublisher = awsPublisher<SnsSettings>({
  brokerType: 'aws_sns',
  keys: SNS_KEYS,
  settings,
  connect: open,
});
