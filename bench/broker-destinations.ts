import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { join } from 'node:path';
import { connect as amqpConnect } from 'amqplib';
import { CreateTopicCommand, SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { Message, PubSub } from '@google-cloud/pubsub';
import { Redis } from 'ioredis';
import { Kafka, logLevel } from '../src/destinations/kafka/kafkajs';
import { BrokerServers, startBroker, stopBroker } from '../test/support/brokers';
import type { MotoServer } from '../test/support/brokers/moto';
import { freePorts } from '../test/support/free-port';
import { amqpUrlOf, startRabbit, stopRabbit } from '../test/support/rabbitmq';

/**
 * A fresh destination on the broker under test, and when each message arrived there. Where
 * the broker stamps messages itself, that stamp is the arrival, so the reader's speed changes
 * no figure: Kafka and Redis are read only after a timed phase (their logs do not slow as
 * they grow; no reader competes with the publisher); SQS and SNS (moto) and Pub/Sub are read
 * all along, to keep queues short, on every destination, the raw client's too, so both phases
 * carry the same load. RabbitMQ has no such stamp (its `timestamp` property is the
 * publisher's, in seconds): a push consumer, on every destination, stamps receipt.
 */
export interface Destination {
  readonly broker: { broker_type: string; conn_details: Record<string, string>; params: Record<string, string> };
  /** How many messages arrived so far; cheap, polled while emitting. */
  count(): Promise<number>;
  /** Delivery id → arrival (ms since the epoch) of each distinct message, once `want` arrived or after `timeoutMs`. */
  arrivals(want: number, timeoutMs: number): Promise<Map<string, number>>;
  close(): Promise<void>;
}

/** A broker type's own server, started alone; destinations on it. */
export interface BrokerUnderTest {
  destination(): Promise<Destination>;
  stop(): Promise<void>;
}

export interface BenchBroker {
  /** What a message's arrival time is, for the table. */
  readonly clock: string;
  start(dir: string): Promise<BrokerUnderTest>;
}

const unique = (prefix: string) => `bench-${prefix}-${randomUUID()}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const until = async (count: () => Promise<number>, want: number, deadline: number) => {
  while ((await count()) < want && Date.now() < deadline) await sleep(200);
};

/** Arrivals stamped by a consumer as they come, into `seen`. */
const pushed = (seen: Map<string, number>): Pick<Destination, 'count' | 'arrivals'> => ({
  count: async () => seen.size,
  arrivals: async (want, timeoutMs) => {
    await until(async () => seen.size, want, Date.now() + timeoutMs);
    return new Map(seen);
  },
});

const rabbitmq = async (url: string): Promise<Destination> => {
  const queue = unique('q');
  const conn = await amqpConnect(url);
  const ch = await conn.createChannel();
  await ch.assertQueue(queue, { durable: true });
  const seen = new Map<string, number>();
  await ch.consume(
    queue,
    (m) => {
      const id = m?.properties.messageId as string | undefined;
      if (id && !seen.has(id)) seen.set(id, Date.now());
    },
    { noAck: true },
  );
  return {
    broker: { broker_type: 'rabbitmq', conn_details: { url }, params: { queue } },
    ...pushed(seen),
    close: async () => {
      await conn.close();
    },
  };
};

const kafka = async (brokers: string[]): Promise<Destination> => {
  const topic = unique('t');
  const client = new Kafka({ clientId: 'bench-reader', brokers, logLevel: logLevel.NOTHING });
  const admin = client.admin();
  await admin.connect();
  await admin.createTopics({
    topics: [
      { topic, numPartitions: 1, replicationFactor: 1, configEntries: [{ name: 'message.timestamp.type', value: 'LogAppendTime' }] },
    ],
    waitForLeaders: true,
  });
  // The idempotent producer writes no control records: the high watermark is the record count.
  const count = async () => (await admin.fetchTopicOffsets(topic)).reduce((n, p) => n + Number(p.high), 0);
  return {
    broker: { broker_type: 'kafka', conn_details: { bootstrap_servers: brokers.join(',') }, params: { topic } },
    count,
    arrivals: async (want, timeoutMs) => {
      const deadline = Date.now() + timeoutMs;
      await until(count, want, deadline);
      const total = await count();
      const seen = new Map<string, number>();
      let read = 0;
      const consumer = client.consumer({ groupId: unique('g') });
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({
        eachBatch: async ({ batch }) => {
          for (const m of batch.messages) {
            read++;
            const id = m.headers?.['delivery-id']?.toString();
            if (id && !seen.has(id)) seen.set(id, Number(m.timestamp));
          }
        },
      });
      while (read < total && Date.now() < deadline + 30_000) await sleep(50);
      await consumer.disconnect();
      return seen;
    },
    close: () => admin.disconnect(),
  };
};

const redis = async (url: string): Promise<Destination> => {
  const stream = unique('s');
  const client = new Redis(url);
  const count = () => client.xlen(stream);
  return {
    broker: { broker_type: 'redis', conn_details: { url }, params: { stream } },
    count,
    arrivals: async (want, timeoutMs) => {
      await until(count, want, Date.now() + timeoutMs);
      const seen = new Map<string, number>();
      for (let from = '-'; ;) {
        const page = await client.xrange(stream, from, '+', 'COUNT', 1000);
        for (const [id, fields] of page) {
          const at = fields.indexOf('delivery-id');
          const deliveryId = at >= 0 ? fields[at + 1] : undefined;
          if (deliveryId && !seen.has(deliveryId)) seen.set(deliveryId, Number(id.split('-')[0]));
        }
        if (page.length < 1000) return seen;
        from = `(${page[page.length - 1]![0]}`;
      }
    },
    close: async () => {
      client.disconnect();
    },
  };
};

const awsConn = (s: MotoServer) => ({
  endpoint_url: s.endpoint,
  region_name: s.region,
  aws_access_key_id: 'test',
  aws_secret_access_key: 'test-secret',
});
const awsClient = (s: MotoServer) => ({
  endpoint: s.endpoint,
  region: s.region,
  credentials: { accessKeyId: 'test', secretAccessKey: 'test-secret' },
});

/**
 * An SQS queue read all along by 16 long-polls, ten messages each, that delete what they read:
 * moto walks every message of a queue on each SendMessage and on each message received
 * (`queue.attributes`), so a queue left to grow slows publishing the longer a phase runs, and
 * fewer readers than the publisher's 50 in flight fall behind. The time is SentTimestamp, so
 * how fast this reads changes no figure.
 */
const sqsQueue = async (sqs: SQSClient): Promise<{ url: string } & Pick<Destination, 'count' | 'arrivals' | 'close'>> => {
  const url = (await sqs.send(new CreateQueueCommand({ QueueName: unique('q') }))).QueueUrl!;
  const seen = new Map<string, number>();
  const stop = new AbortController();
  setMaxListeners(32, stop.signal);
  const readers = Array.from({ length: 16 }, async () => {
    while (!stop.signal.aborted) {
      try {
        const r = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: url,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 20,
            MessageSystemAttributeNames: ['SentTimestamp'],
            MessageAttributeNames: ['delivery-id'],
          }),
          { abortSignal: stop.signal },
        );
        const messages = r.Messages ?? [];
        for (const m of messages) {
          const id = m.MessageAttributes?.['delivery-id']?.StringValue;
          if (id && !seen.has(id)) seen.set(id, Number(m.Attributes?.SentTimestamp));
        }
        if (messages.length > 0) {
          await sqs.send(
            new DeleteMessageBatchCommand({
              QueueUrl: url,
              Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
            }),
          );
        }
      } catch {
        if (!stop.signal.aborted) await sleep(100);
      }
    }
  });
  return {
    url,
    ...pushed(seen),
    close: async () => {
      stop.abort();
      await Promise.all(readers);
    },
  };
};

const awsSqs = async (server: MotoServer): Promise<Destination> => {
  const sqs = new SQSClient(awsClient(server));
  const { url, ...reader } = await sqsQueue(sqs);
  return {
    broker: { broker_type: 'aws_sqs', conn_details: awsConn(server), params: { queue_url: url } },
    ...reader,
    close: async () => {
      await reader.close();
      sqs.destroy();
    },
  };
};

const awsSns = async (server: MotoServer): Promise<Destination> => {
  const [sns, sqs] = [new SNSClient(awsClient(server)), new SQSClient(awsClient(server))];
  const topicArn = (await sns.send(new CreateTopicCommand({ Name: unique('t') }))).TopicArn!;
  const { url, ...reader } = await sqsQueue(sqs);
  const queueArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
  await sns.send(
    new SubscribeCommand({ TopicArn: topicArn, Protocol: 'sqs', Endpoint: queueArn, Attributes: { RawMessageDelivery: 'true' } }),
  );
  return {
    broker: { broker_type: 'aws_sns', conn_details: awsConn(server), params: { topic_arn: topicArn } },
    ...reader,
    close: async () => {
      await reader.close();
      sns.destroy();
      sqs.destroy();
    },
  };
};

const gcpPubsub = async ({ apiEndpoint, projectId }: BrokerServers['pubsub']): Promise<Destination> => {
  const client = new PubSub({ projectId, apiEndpoint, emulatorMode: true, universeDomain: 'googleapis.com' });
  const [topic] = await client.createTopic(unique('t'));
  const [created] = await topic.createSubscription(unique('s'));
  const subscription = client.subscription(created.name, { flowControl: { maxMessages: 5000, allowExcessMessages: true } });
  const seen = new Map<string, number>();
  subscription.on('message', (m: Message) => {
    m.ack();
    const id = m.attributes['delivery-id'];
    if (id && !seen.has(id)) seen.set(id, m.publishTime.getTime());
  });
  subscription.on('error', () => undefined); // a stream the emulator ends is reopened by the client
  return {
    broker: {
      broker_type: 'gcp_pubsub',
      conn_details: { project: projectId, topic: topic.name.split('/').pop()!, emulator_host: apiEndpoint },
      params: {},
    },
    ...pushed(seen),
    close: async () => {
      await subscription.close();
      await client.close();
    },
  };
};

/** One of the shared servers alone, in `dir`. */
const alone =
  <K extends keyof BrokerServers>(kind: K, make: (s: BrokerServers[K]) => Promise<Destination>) =>
  async (dir: string): Promise<BrokerUnderTest> => {
    const server = await startBroker(kind, dir);
    return { destination: () => make(server), stop: async () => stopBroker(server) };
  };

const privateRabbit = async (dir: string): Promise<BrokerUnderTest> => {
  const [port, distPort] = (await freePorts(2)) as [number, number];
  const node = { dir: join(dir, 'rabbitmq'), port, distPort, name: `at-bench-${process.pid}@localhost` };
  const pgid = await startRabbit(node);
  const url = amqpUrlOf(node);
  return { destination: () => rabbitmq(url), stop: () => stopRabbit(pgid, url) };
};

/** Per broker type: its server alone, and where a message's arrival time comes from. */
export const BENCH_BROKERS: Record<string, BenchBroker> = {
  rabbitmq: { clock: 'receipt by a push consumer (basic.consume, no ack) in the bench process', start: privateRabbit },
  kafka: {
    clock: "the broker's append time (topic with message.timestamp.type=LogAppendTime)",
    start: alone('kafka', (s) => kafka(s.brokers)),
  },
  redis: { clock: "the stream entry id (XADD '*': the server's clock, ms)", start: alone('redis', (s) => redis(s.url)) },
  aws_sqs: { clock: "SentTimestamp (moto's clock when it took SendMessage)", start: alone('moto', awsSqs) },
  aws_sns: { clock: 'SentTimestamp on the subscribed SQS queue (moto enqueues it within Publish)', start: alone('moto', awsSns) },
  gcp_pubsub: { clock: "publishTime (the emulator's clock when it took Publish)", start: alone('pubsub', gcpPubsub) },
};
