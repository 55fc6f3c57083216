import { CreateEventBusCommand, EventBridgeClient, PutRuleCommand, PutTargetsCommand } from '@aws-sdk/client-eventbridge';
import { testServers } from '../../servers';
import { awsClient, awsConn, isJsonType, ON_MOTO, sqsQueue } from '../aws-target';
import type { BrokerServers } from '../index';
import { BrokerTarget, TestedBrokerType, unique } from '../target';

interface Detail {
  payload: unknown;
  delivery_id?: string;
  content_type?: string;
  traceparent?: string;
}

/** A custom bus with a rule that sends every event of the target's source to an SQS queue, which the target reads. */
const open = async (servers: BrokerServers = testServers().brokers): Promise<BrokerTarget> => {
  const events = new EventBridgeClient(awsClient(servers));
  const [bus, source] = [unique('bus'), unique('shop')];
  await events.send(new CreateEventBusCommand({ Name: bus }));
  const q = await sqsQueue(servers);
  const queueArn = await q.arn();
  const rule = unique('rule');
  await events.send(new PutRuleCommand({ Name: rule, EventBusName: bus, EventPattern: JSON.stringify({ source: [source] }) }));
  await events.send(new PutTargetsCommand({ Rule: rule, EventBusName: bus, Targets: [{ Id: 'queue', Arn: queueArn }] }));
  const read = async (count: number, timeoutMs?: number) =>
    (await q.read(count, timeoutMs)).map(({ body }) => {
      const { detail } = JSON.parse(body) as { detail: Detail };
      return {
        body: isJsonType(detail.content_type) ? JSON.stringify(detail.payload) : (detail.payload as string),
        deliveryId: detail.delivery_id,
        contentType: detail.content_type,
        traceparent: detail.traceparent,
      };
    });
  return {
    type: 'aws_eventbridge',
    broker: {
      broker_type: 'aws_eventbridge',
      conn_details: awsConn(servers),
      params: { event_bus_name: bus, source, detail_type: 'order saved' },
    },
    read,
    close: async () => {
      events.destroy();
      await q.close();
    },
  };
};

const awsEventBridge: TestedBrokerType = {
  open,
  ...ON_MOTO,
  addressKeys: ['endpoint_url', 'event_bus_name'],
  // Added after that test was written; publishers-outage covers its publisher's outage.
  notYetIn: ['brokers-outage-dispatch'],
};
export default awsEventBridge;
