import { connect } from 'node:net';
import type { ISocketFactory, Producer } from './kafkajs';
import type { BrokerKeys } from '../broker-kit/settings-keys';
import type { BrokerConnection, Publisher } from '../broker-kit/port';
import { closeThenDestroy, openOrDestroy, socketsOf } from '../broker-kit/client-lifetime';
import { reader } from '../broker-kit/settings';
import { ErrorShape, token } from '../broker-kit/publish-error';

/** One record's destination: `params.key` (often `{{ instance.id }}`) keeps one entity's records in order. */
export interface KafkaSettings {
  brokers: string[];
  clientId: string;
  topic: string;
  key: string | undefined;
}

/** The keys a kafka broker reads (see ../broker-kit/settings-keys.ts). */
const KAFKA_KEYS = {
  conn_details: {
    bootstrap_servers: {
      required: true,
      address: 'host-ports',
      format: 'host:port, comma-separated',
      description: 'Brokers to bootstrap from',
    },
    client_id: { default: 'action-triggers', description: 'The Kafka client id' },
  },
  params: {
    topic: { required: true, description: 'The topic' },
    key: { use: 'per-message', description: "The record key: one entity's records go to one partition, in order" },
  },
} as const satisfies BrokerKeys;

const settings: Publisher<KafkaSettings>['settings'] = (connDetails, params) => {
  const r = reader(KAFKA_KEYS, connDetails, params);
  const servers = r.conn.required('bootstrap_servers');
  const topic = r.params.required('topic');
  const brokers = servers
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (r.literal(servers) && !brokers.every((b) => /^[^\s:]+:\d{1,5}$/.test(b)))
    r.problem('conn_details.bootstrap_servers', 'must be host:port, comma-separated');
  return r.result({ brokers, clientId: r.conn.optional('client_id') ?? 'action-triggers', topic, key: r.params.optional('key') });
};

/**
 * An idempotent producer: acks from all in-sync replicas, retried sends never duplicate a
 * record in the log. Records carry the body and the headers `delivery-id` and `content-type`.
 */
const open = async (s: KafkaSettings, signal: AbortSignal): Promise<BrokerConnection<KafkaSettings>> => {
  const { Kafka, logLevel, Partitioners } = await import('./kafkajs');
  // Our own sockets: kafkajs's disconnect waits for requests in flight, 30 s against a broker that never answers.
  const sockets = socketsOf();
  const socketFactory: ISocketFactory = ({ host, port, onConnect }) =>
    sockets.add(connect({ host, port }, onConnect)).setKeepAlive(true, 60_000);
  const kafka = new Kafka({ clientId: s.clientId, brokers: s.brokers, logLevel: logLevel.NOTHING, retry: { retries: 2 }, socketFactory });
  const producer: Producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  let lost = false;
  producer.on(producer.events.DISCONNECT, () => {
    lost = true;
  });
  const destroy = () => {
    sockets.destroyAll();
    void producer.disconnect().catch(() => undefined);
  };
  await openOrDestroy(signal, producer.connect(), destroy);
  return {
    broken: () => lost,
    publish: async (target, message) => {
      const [meta] = await producer
        .send({
          topic: target.topic,
          acks: -1,
          messages: [
            {
              key: target.key ?? null,
              value: message.body,
              headers: {
                'delivery-id': message.deliveryId,
                'content-type': message.contentType,
                ...(message.traceparent ? { traceparent: message.traceparent } : {}),
              },
            },
          ],
        })
        .catch((e: unknown) => {
          // A failed send may leave its topic in the producer's metadata requests: the next attempt gets a fresh producer.
          lost = true;
          throw e;
        });
      return meta ? { brokerMessageId: `${meta.topicName}/${meta.partition}/${meta.baseOffset ?? ''}` } : {};
    },
    close: () => closeThenDestroy(() => producer.disconnect(), destroy),
  };
};

/** kafkajs' errors: a protocol error's type comes from kafkajs' own table of Kafka's numeric codes. */
const describeKafkaError = (e: ErrorShape): string | undefined => {
  if (typeof e.name !== 'string' || !e.name.startsWith('KafkaJS')) return undefined;
  const inner = e.cause !== null && typeof e.cause === 'object' ? describeKafkaError(e.cause as ErrorShape) : undefined;
  if (inner) return inner;
  return token(e.type) ? `refused it: ${String(e.type)}` : `failed (${token(e.name) ?? 'KafkaJS error'})`;
};

export const kafkaPublisher: Publisher<KafkaSettings> = {
  brokerType: 'kafka',
  keys: KAFKA_KEYS,
  describeError: describeKafkaError,
  settings,
  // A producer per topic: kafkajs asks for the metadata of all of a producer's topics at once, and
  // one topic's error (a name the broker refuses, a missing topic) fails that request for all.
  connectionKey: (s) => `${s.clientId}@${s.brokers.join(',')} ${s.topic}`,
  connect: open,
};
