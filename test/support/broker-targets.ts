import { randomUUID } from 'node:crypto';
import { connect as amqpConnect } from 'amqplib';
import { CreateTopicCommand, SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import { CreateQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { CreateFunctionCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { CreateEventBusCommand, EventBridgeClient, PutRuleCommand, PutTargetsCommand } from '@aws-sdk/client-eventbridge';
import { LambdaRecorder, startLambdaRecorder } from './lambda-recorder';
import { isJsonContentType } from '../../src/destinations/broker-kit/aws';
import { PubSub, v1 } from '@google-cloud/pubsub';
import { Redis } from 'ioredis';
import { Kafka, logLevel } from '../../src/destinations/kafka/kafkajs';
import { testServers } from './servers';
import type { BrokerServers } from './brokers';

/** One message as a consumer of the broker saw it. */
export interface Consumed {
  body: string;
  deliveryId: string | undefined;
  contentType: string | undefined;
  traceparent?: string | undefined;
}

/**
 * A fresh destination on one of the test's real brokers: the broker config that publishes to
 * it (our config's names), and a real consumer that reads what arrived.
 */
export interface BrokerTarget {
  readonly type: string;
  readonly broker: { broker_type: string; conn_details: Record<string, string>; params: Record<string, string> };
  /** Everything that arrived so far, after waiting until at least `count` did (or `timeoutMs`). */
  read(count: number, timeoutMs?: number): Promise<Consumed[]>;
  close(): Promise<void>;
}

const unique = (prefix: string) => `${prefix}-${randomUUID()}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const AWS_KEYS = { aws_access_key_id: 'test', aws_secret_access_key: 'test-secret' };

/** Polls `pull` until `count` messages are in, or the time is up. */
const collect = async (pull: () => Promise<Consumed[]>, count: number, timeoutMs: number, into: Consumed[]) => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    into.push(...(await pull()));
    if (into.length >= count || Date.now() >= deadline) return [...into];
    await sleep(100);
  }
};

/** Where the targets live: the shared test servers, or private ones (a bench, an outage test). */
export type TargetServers = BrokerServers & { rabbitUrl?: string };

const rabbitmq = async (servers?: TargetServers): Promise<BrokerTarget> => {
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

const kafka = async (servers: BrokerServers = testServers().brokers): Promise<BrokerTarget> => {
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

const redis = async (servers: BrokerServers = testServers().brokers): Promise<BrokerTarget> => {
  const { url } = servers.redis;
  const stream = unique('s');
  const client = new Redis(url);
  return {
    type: 'redis',
    broker: { broker_type: 'redis', conn_details: { url }, params: { stream } },
    read: (count, timeoutMs = 15_000) =>
      collect(
        async () => {
          const entries = await client.xrange(stream, '-', '+');
          const fields = entries.map(([, f]) => Object.fromEntries(f.flatMap((v, i) => (i % 2 === 0 ? [[v, f[i + 1]!]] : []))));
          return fields.length >= count
            ? fields.map((f) => ({
                body: f.body ?? '',
                deliveryId: f['delivery-id'],
                contentType: f['content-type'],
                traceparent: f.traceparent,
              }))
            : [];
        },
        count,
        timeoutMs,
        [],
      ),
    close: async () => {
      client.disconnect();
    },
  };
};

const awsConn = (s: BrokerServers) => ({ endpoint_url: s.moto.endpoint, region_name: s.moto.region, ...AWS_KEYS });
const awsClient = (s: BrokerServers) => ({
  endpoint: s.moto.endpoint,
  region: s.moto.region,
  credentials: { accessKeyId: AWS_KEYS.aws_access_key_id, secretAccessKey: AWS_KEYS.aws_secret_access_key },
});

/** An SQS queue and a reader of it (SNS targets read through a subscribed queue). */
const sqsQueue = async (sqs: SQSClient, fifo = false) => {
  const url = (
    await sqs.send(
      new CreateQueueCommand({ QueueName: unique('q') + (fifo ? '.fifo' : ''), ...(fifo ? { Attributes: { FifoQueue: 'true' } } : {}) }),
    )
  ).QueueUrl!;
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
  return { url, read };
};

const awsSqs = async (servers: BrokerServers = testServers().brokers): Promise<BrokerTarget> => {
  const sqs = new SQSClient(awsClient(servers));
  const q = await sqsQueue(sqs);
  return {
    type: 'aws_sqs',
    broker: { broker_type: 'aws_sqs', conn_details: awsConn(servers), params: { queue_url: q.url } },
    read: q.read,
    close: async () => {
      sqs.destroy();
    },
  };
};

const awsSns = async (servers: BrokerServers = testServers().brokers): Promise<BrokerTarget> => {
  const [sns, sqs] = [new SNSClient(awsClient(servers)), new SQSClient(awsClient(servers))];
  const topicArn = (await sns.send(new CreateTopicCommand({ Name: unique('t') }))).TopicArn!;
  const q = await sqsQueue(sqs);
  const queueArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: q.url, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
  await sns.send(
    new SubscribeCommand({ TopicArn: topicArn, Protocol: 'sqs', Endpoint: queueArn, Attributes: { RawMessageDelivery: 'true' } }),
  );
  return {
    type: 'aws_sns',
    broker: { broker_type: 'aws_sns', conn_details: awsConn(servers), params: { topic_arn: topicArn } },
    read: q.read,
    close: async () => {
      sns.destroy();
      sqs.destroy();
    },
  };
};

/** A function that returns its event (moto runs it without Docker), behind a recorder of its invocations. */
const FUNCTION_ZIP = Buffer.from(
  'UEsDBBQAAAAAABWdgV0oDJycKgAAACoAAAAIAAAAaW5kZXguanNleHBvcnRzLmhhbmRsZXIgPSBhc3luYyAoZXZlbnQpID0+IGV2ZW50OwpQSwECFAMUAAAAAAAVnYFdKAycnCoAAAAqAAAACAAAAAAAAAAAAAAAgAEAAAAAaW5kZXguanNQSwUGAAAAAAEAAQA2AAAAUAAAAAAA',
  'base64',
);

/** An IAM role for the function: moto checks that it exists. A Query API call (moto checks no signature). */
const createRole = async (endpoint: string, name: string) => {
  const answer = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: 'AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/iam/aws4_request, SignedHeaders=host, Signature=0',
    },
    body: new URLSearchParams({ Action: 'CreateRole', Version: '2010-05-08', RoleName: name, AssumeRolePolicyDocument: '{}' }),
  });
  if (!answer.ok) throw new Error(`CreateRole: ${answer.status} ${await answer.text()}`);
  return `arn:aws:iam::123456789012:role/${name}`;
};

const isJsonType = (contentType: string | undefined) => isJsonContentType(contentType ?? '');

/** What the function was given, as the sender's body: a JSON body is the event, any other a JSON string. */
const fromInvocation = (payload: string, custom: Record<string, string> = {}): Consumed => ({
  body: isJsonType(custom['content-type']) ? payload : (JSON.parse(payload) as string),
  deliveryId: custom['delivery-id'],
  contentType: custom['content-type'],
  traceparent: custom.traceparent,
});

const awsLambda = async (servers: BrokerServers = testServers().brokers): Promise<BrokerTarget & { recorder: LambdaRecorder }> => {
  const lambda = new LambdaClient(awsClient(servers));
  const name = unique('f');
  await lambda.send(
    new CreateFunctionCommand({
      FunctionName: name,
      Runtime: 'nodejs20.x',
      Handler: 'index.handler',
      Role: await createRole(servers.moto.endpoint, unique('role')),
      Code: { ZipFile: FUNCTION_ZIP },
    }),
  );
  lambda.destroy();
  const recorder = await startLambdaRecorder(servers.moto.endpoint);
  const got: Consumed[] = [];
  return {
    type: 'aws_lambda',
    broker: {
      broker_type: 'aws_lambda',
      conn_details: { ...awsConn(servers), endpoint_url: recorder.endpoint },
      params: { FunctionName: name },
    },
    recorder,
    read: (count, timeoutMs = 15_000) =>
      collect(
        async () =>
          recorder.invocations
            .splice(0)
            .flatMap((i) => (i.functionName === name ? [fromInvocation(i.payload, i.clientContext?.custom)] : [])),
        count,
        timeoutMs,
        got,
      ),
    close: () => recorder.close(),
  };
};

/** A custom bus with a rule that sends every event of the target's source to an SQS queue, which the target reads. */
const awsEventBridge = async (servers: BrokerServers = testServers().brokers): Promise<BrokerTarget> => {
  const [events, sqs] = [new EventBridgeClient(awsClient(servers)), new SQSClient(awsClient(servers))];
  const [bus, source] = [unique('bus'), unique('shop')];
  await events.send(new CreateEventBusCommand({ Name: bus }));
  const q = await sqsQueue(sqs);
  const queueArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: q.url, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
  const rule = unique('rule');
  await events.send(new PutRuleCommand({ Name: rule, EventBusName: bus, EventPattern: JSON.stringify({ source: [source] }) }));
  await events.send(new PutTargetsCommand({ Rule: rule, EventBusName: bus, Targets: [{ Id: 'queue', Arn: queueArn }] }));
  const read = async (count: number, timeoutMs?: number) =>
    (await q.read(count, timeoutMs)).map(({ body }) => {
      const detail = (
        JSON.parse(body) as { detail: { payload: unknown; delivery_id?: string; content_type?: string; traceparent?: string } }
      ).detail;
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
      sqs.destroy();
    },
  };
};

const gcpPubsub = async (servers: BrokerServers = testServers().brokers): Promise<BrokerTarget> => {
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

/** A fresh target on each broker type's real server (the shared ones, or `servers`). */
export const BROKER_TARGETS: Record<string, (servers?: TargetServers) => Promise<BrokerTarget>> = {
  rabbitmq,
  kafka,
  redis,
  aws_sqs: awsSqs,
  aws_sns: awsSns,
  gcp_pubsub: gcpPubsub,
  aws_lambda: awsLambda,
  aws_eventbridge: awsEventBridge,
};

/** The conn_details key that says where each broker type connects, pointed at a loopback port. */
export const pointedAt = (type: string, port: number): Record<string, string> =>
  ({
    rabbitmq: { url: `amqp://guest:guest@127.0.0.1:${port}` },
    kafka: { bootstrap_servers: `127.0.0.1:${port}` },
    redis: { url: `redis://127.0.0.1:${port}` },
    aws_sqs: { endpoint_url: `http://127.0.0.1:${port}` },
    aws_sns: { endpoint_url: `http://127.0.0.1:${port}` },
    gcp_pubsub: { emulator_host: `127.0.0.1:${port}` },
    aws_lambda: { endpoint_url: `http://127.0.0.1:${port}` },
    aws_eventbridge: { endpoint_url: `http://127.0.0.1:${port}` },
  })[type]!;
