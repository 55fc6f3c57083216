import type { Publisher } from './port';
import { rabbitmqPublisher } from './rabbitmq';

/** Every broker type this build publishes to. A new type is one module and one line here. */
const PUBLISHERS: ReadonlyArray<Publisher<unknown>> = [rabbitmqPublisher as Publisher<unknown>];

const byType = new Map(PUBLISHERS.map((p) => [p.brokerType, p]));

export const SUPPORTED_BROKER_TYPES: readonly string[] = PUBLISHERS.map((p) => p.brokerType);

/** The publisher of a `broker_type` (matched case-insensitively), if this build has one. */
export const publisherFor = (brokerType: string): Publisher<unknown> | undefined => byType.get(brokerType.toLowerCase());
