import type { Publisher } from './port';
import { kafkaPublisher } from './kafka';
import { pubsubPublisher } from './pubsub';
import { rabbitmqPublisher } from './rabbitmq';
import { redisPublisher } from './redis';
import { snsPublisher } from './sns';
import { sqsPublisher } from './sqs';

/** Every broker type this build publishes to. A new type is one module, one line here and its keys in activities/publishers/settings-keys.ts. */
const PUBLISHERS = [rabbitmqPublisher, kafkaPublisher, redisPublisher, sqsPublisher, snsPublisher, pubsubPublisher] as ReadonlyArray<Publisher<unknown>>;

const byType = new Map(PUBLISHERS.map((p) => [p.brokerType, p]));

export const SUPPORTED_BROKER_TYPES: readonly string[] = PUBLISHERS.map((p) => p.brokerType);

/** The publisher of a `broker_type` (matched case-insensitively), if this build has one. */
export const publisherFor = (brokerType: string): Publisher<unknown> | undefined => byType.get(brokerType.toLowerCase());
