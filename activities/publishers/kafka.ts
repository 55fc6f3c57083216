import type { Producer } from 'kafkajs';
import { BROKER_KEYS } from '../../src/brokers/settings-keys';
import type { BrokerConnection, Publisher } from './port';
import { reader } from './settings';

/** One record's destination: `params.key` (often `{{ instance.id }}`) keeps one entity's records in order. */
export interface KafkaSettings { brokers: string[]; clientId: string; topic: string; key: string | undefined }

const settings: Publisher<KafkaSettings>['settings'] = (connDetails, params) => {
  const r = reader(BROKER_KEYS.kafka, connDetails, params);
  const servers = r.conn.required('bootstrap_servers');
  const topic = r.params.required('topic');
  const brokers = servers.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (r.literal(servers) && !brokers.every((b) => /^[^\s:]+:\d{1,5}$/.test(b))) r.problem('conn_details.bootstrap_servers', 'must be host:port, comma-separated');
  return r.result({ brokers, clientId: r.conn.optional('client_id') ?? 'action-triggers', topic, key: r.params.optional('key') });
};

/**
 * An idempotent producer: acks from all in-sync replicas, retried sends never duplicate a
 * record in the log. Records carry the body and the headers `delivery-id` and `content-type`.
 */
const open = async (s: KafkaSettings): Promise<BrokerConnection<KafkaSettings>> => {
  const { Kafka, logLevel, Partitioners } = await import('kafkajs');
  const kafka = new Kafka({ clientId: s.clientId, brokers: s.brokers, logLevel: logLevel.NOTHING, retry: { retries: 2 } });
  const producer: Producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner });
  let lost = false;
  producer.on(producer.events.DISCONNECT, () => { lost = true; });
  await producer.connect();
  return {
    broken: () => lost,
    publish: async (target, message) => {
      const [meta] = await producer.send({
        topic: target.topic, acks: -1,
        messages: [{ key: target.key ?? null, value: message.body, headers: {
          'delivery-id': message.deliveryId, 'content-type': message.contentType, ...(message.traceparent ? { traceparent: message.traceparent } : {}),
        } }],
      });
      return meta ? { brokerMessageId: `${meta.topicName}/${meta.partition}/${meta.baseOffset ?? ''}` } : {};
    },
    close: () => producer.disconnect(),
  };
};

export const kafkaPublisher: Publisher<KafkaSettings> = {
  brokerType: 'kafka',
  settings,
  connectionKey: (s) => `${s.clientId}@${s.brokers.join(',')}`,
  connect: open,
};
