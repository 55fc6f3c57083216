import { brokerDestination } from './brokers/destination';
import { webhookDestination } from './webhook/destination';

/**
 * Every kind of destination, by its action kind: the trigger codec, the OpenAPI document and the
 * worker read them here. A new broker type is one folder and one line in brokers/registry.ts.
 */
export const DESTINATIONS = {
  webhook: webhookDestination,
  broker: brokerDestination,
} as const;
