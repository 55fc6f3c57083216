import { randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CreateTopicCommand, PublishCommand, SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  Message,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { PubSub, v1 } from '@google-cloud/pubsub';
import { Redis } from 'ioredis';
import { Kafka, KafkaMessage, logLevel, Partitioners } from '../../../src/destinations/kafka/kafkajs';
import { testServers } from '../../support/servers';

/**
 * The broker servers of the global setup answer the pinned Node clients the way the publishers
 * will use them. Everything talks to 127.0.0.1 only.
 */
const { kafka, redis, moto, pubsub } = testServers().brokers;
const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..', '..');
const unique = (prefix: string) => `${prefix}-${randomUUID()}`;

test('Kafka: an idempotent producer (acks -1) writes a record with headers; a consumer reads it back', async () => {
  const client = new Kafka({ clientId: 'broker-servers-test', brokers: kafka.brokers, logLevel: logLevel.NOTHING });
  const topic = unique('orders');
  const admin = client.admin();
  const producer = client.producer({ idempotent: true, maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner });
  const consumer = client.consumer({ groupId: unique('group') });
  try {
    await admin.connect();
    expect(await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }], waitForLeaders: true })).toBe(true);
    await producer.connect();
    const [sent] = await producer.send({
      topic,
      acks: -1,
      messages: [{ key: 'order-1', value: '{"n":1}', headers: { 'x-action-id': 'a1' } }],
    });
    expect(sent).toMatchObject({ topicName: topic, errorCode: 0, baseOffset: '0' });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const received = new Promise<KafkaMessage>((resolve) => {
      void consumer.run({ eachMessage: async ({ message }) => resolve(message) });
    });
    const message = await received;
    expect([message.key?.toString(), message.value?.toString(), message.headers?.['x-action-id']?.toString()]).toEqual([
      'order-1',
      '{"n":1}',
      'a1',
    ]);
  } finally {
    await Promise.all([consumer.disconnect(), producer.disconnect(), admin.disconnect()]);
  }
});

test('Redis: a PUBLISH reaches a subscriber; an XADD entry is read back by XRANGE', async () => {
  const subscriber = new Redis({ host: redis.host, port: redis.port, maxRetriesPerRequest: 1 });
  const client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  const [channel, stream] = [unique('events'), unique('stream')];
  try {
    await subscriber.subscribe(channel);
    const received = new Promise<[string, string]>((resolve) => subscriber.on('message', (ch: string, m: string) => resolve([ch, m])));
    expect(await client.publish(channel, '{"n":1}')).toBe(1);
    expect(await received).toEqual([channel, '{"n":1}']);
    const id = await client.xadd(stream, '*', 'payload', '{"n":2}', 'action_id', 'a2');
    expect(await client.xrange(stream, '-', '+')).toEqual([[id, ['payload', '{"n":2}', 'action_id', 'a2']]]);
  } finally {
    subscriber.disconnect();
    client.disconnect();
  }
});

const aws = { endpoint: moto.endpoint, region: moto.region, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } };

const receiveAll = async (sqs: SQSClient, queueUrl: string, count: number, tries = 10): Promise<Message[]> => {
  const messages: Message[] = [];
  for (let i = 0; i < tries && messages.length < count; i++) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 1,
        MessageAttributeNames: ['All'],
        MessageSystemAttributeNames: ['MessageGroupId', 'MessageDeduplicationId'],
      }),
    );
    messages.push(...Messages);
  }
  return messages;
};

test('SQS: standard and FIFO queues take SendMessage with attributes; FIFO deduplicates by MessageDeduplicationId', async () => {
  const sqs = new SQSClient(aws);
  const standard = (await sqs.send(new CreateQueueCommand({ QueueName: unique('jobs') }))).QueueUrl!;
  expect(standard).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/123456789012\/jobs-/);
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: standard,
      MessageBody: '{"n":1}',
      MessageAttributes: { action_id: { DataType: 'String', StringValue: 'a1' } },
    }),
  );
  const [plain] = await receiveAll(sqs, standard, 1);
  expect([plain?.Body, plain?.MessageAttributes?.action_id?.StringValue]).toEqual(['{"n":1}', 'a1']);

  const fifo = (await sqs.send(new CreateQueueCommand({ QueueName: `${unique('jobs')}.fifo`, Attributes: { FifoQueue: 'true' } })))
    .QueueUrl!;
  for (const body of ['{"n":2}', '{"n":2,"again":true}']) {
    await sqs.send(new SendMessageCommand({ QueueUrl: fifo, MessageBody: body, MessageGroupId: 'order-2', MessageDeduplicationId: 'a2' }));
  }
  const [first] = await receiveAll(sqs, fifo, 1);
  expect([first?.Body, first?.Attributes?.MessageGroupId, first?.Attributes?.MessageDeduplicationId]).toEqual(['{"n":2}', 'order-2', 'a2']);
  // A FIFO group holds back its next message until this one is deleted: only then can we see there is none.
  await sqs.send(new DeleteMessageCommand({ QueueUrl: fifo, ReceiptHandle: first!.ReceiptHandle! }));
  expect(await receiveAll(sqs, fifo, 1, 1)).toEqual([]);
  sqs.destroy();
});

test('SNS: a Publish to a topic reaches its SQS subscriber (raw delivery) with the message attributes', async () => {
  const [sns, sqs] = [new SNSClient(aws), new SQSClient(aws)];
  const topicArn = (await sns.send(new CreateTopicCommand({ Name: unique('events') }))).TopicArn!;
  expect(topicArn).toMatch(/^arn:aws:sns:us-east-1:123456789012:events-/);
  const queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: unique('inbox') }))).QueueUrl!;
  const queueArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }))).Attributes!
    .QueueArn!;
  await sns.send(
    new SubscribeCommand({ TopicArn: topicArn, Protocol: 'sqs', Endpoint: queueArn, Attributes: { RawMessageDelivery: 'true' } }),
  );
  const { MessageId } = await sns.send(
    new PublishCommand({
      TopicArn: topicArn,
      Message: '{"n":1}',
      MessageAttributes: { action_id: { DataType: 'String', StringValue: 'a1' } },
    }),
  );
  expect(MessageId).toBeTruthy();
  const [message] = await receiveAll(sqs, queueUrl, 1);
  expect([message?.Body, message?.MessageAttributes?.action_id?.StringValue]).toEqual(['{"n":1}', 'a1']);
  sns.destroy();
  sqs.destroy();
});

/** The options the Pub/Sub publisher needs for an emulator: plain gRPC, and no GCE metadata probe. */
const pubsubOptions = {
  projectId: pubsub.projectId,
  apiEndpoint: pubsub.apiEndpoint,
  emulatorMode: true,
  // Without it google-gax asks google-auth-library for the universe domain, which probes the metadata server.
  universeDomain: 'googleapis.com',
};

test('Pub/Sub: a message with attributes and an ordering key is pulled from a subscription', async () => {
  const client = new PubSub(pubsubOptions);
  // The same host, port and insecure channel credentials, for a synchronous pull (the handwritten API only streams).
  const subscriber = new v1.SubscriberClient((await client.getClientConfig()) as ConstructorParameters<typeof v1.SubscriberClient>[0]);
  try {
    const [topic] = await client.createTopic(unique('orders'));
    const [subscription] = await topic.createSubscription(unique('orders-sub'), { enableMessageOrdering: true });
    const publisher = client.topic(topic.name, { messageOrdering: true });
    for (const n of [1, 2]) {
      await publisher.publishMessage({ data: Buffer.from(`{"n":${n}}`), attributes: { action_id: `a${n}` }, orderingKey: 'order-1' });
    }
    const pulled: { data: string; attributes: unknown; orderingKey: unknown }[] = [];
    for (let i = 0; i < 10 && pulled.length < 2; i++) {
      const [response] = await subscriber.pull({ subscription: subscription.name, maxMessages: 10 });
      for (const r of response.receivedMessages ?? []) {
        pulled.push({
          data: Buffer.from(r.message!.data!).toString(),
          attributes: r.message!.attributes,
          orderingKey: r.message!.orderingKey,
        });
      }
      const ackIds = (response.receivedMessages ?? []).map((r) => r.ackId!);
      if (ackIds.length) await subscriber.acknowledge({ subscription: subscription.name, ackIds });
    }
    expect(pulled).toEqual([
      { data: '{"n":1}', attributes: { action_id: 'a1' }, orderingKey: 'order-1' },
      { data: '{"n":2}', attributes: { action_id: 'a2' }, orderingKey: 'order-1' },
    ]);
  } finally {
    await subscriber.close();
    await client.close();
  }
});

// In plain Node, not jest: under jest gaxios's dynamic import fails, which would hide a probe.
const PROBE = `
  const { PubSub } = require('@google-cloud/pubsub');
  const client = new PubSub(JSON.parse(process.argv[1]));
  client.getTopics().then(() => client.close()).then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
`;

test("Pub/Sub: those options alone keep Google's auth library off the GCE metadata server", async () => {
  const paths: string[] = [];
  const trap = createServer((req, res) => {
    paths.push(req.url ?? '');
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => trap.listen(0, '127.0.0.1', r));
  const env: NodeJS.ProcessEnv = { ...process.env, GCE_METADATA_HOST: `127.0.0.1:${(trap.address() as AddressInfo).port}` };
  delete env.METADATA_SERVER_DETECTION;
  try {
    const { stderr } = await run(process.execPath, ['-e', PROBE, JSON.stringify(pubsubOptions)], { cwd: ROOT, env });
    expect(stderr).toBe('');
    expect(paths).toEqual([]);
  } finally {
    trap.close();
  }
});
