import type { Publisher } from '../broker-kit/port';
import type { BrokerKeys } from '../broker-kit/settings-keys';
import { celeryPublisher } from '../celery/publisher';
import { eventBridgePublisher } from '../eventbridge/publisher';
import { kafkaPublisher } from '../kafka/publisher';
import { lambdaPublisher } from '../lambda/publisher';
import { pubsubPublisher } from '../pubsub/publisher';
import { rabbitmqPublisher } from '../rabbitmq/publisher';
import { redisPublisher } from '../redis/publisher';
import { snsPublisher } from '../sns/publisher';
import { sqsPublisher } from '../sqs/publisher';

/** Every broker type this build publishes to. A new type is one folder (its keys, settings, connection and error words) and one line here. */
const PUBLISHERS = [
  rabbitmqPublisher,
  kafkaPublisher,
  redisPublisher,
  sqsPublisher,
  snsPublisher,
  pubsubPublisher,
  lambdaPublisher,
  eventBridgePublisher,
  celeryPublisher,
] as ReadonlyArray<Publisher<unknown>>;

const byType = new Map(PUBLISHERS.map((p) => [p.brokerType, p]));

export const SUPPORTED_BROKER_TYPES: readonly string[] = PUBLISHERS.map((p) => p.brokerType);

/** The publisher of a `broker_type` (matched case-insensitively), if this build has one. */
export const publisherFor = (brokerType: string): Publisher<unknown> | undefined => byType.get(brokerType.toLowerCase());

/** Each broker type's keys, by type: what trigger validation, the dry run and the OpenAPI document read. */
export const BROKER_KEYS: Readonly<Record<string, BrokerKeys>> = Object.fromEntries(PUBLISHERS.map((p) => [p.brokerType, p.keys]));
