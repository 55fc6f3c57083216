import { MAX_QUEUES_PER_TRIGGER } from '../../kernel/limits';
import type { Destination } from '../port/destination';
import type { BrokerPolicy } from './policy';
import { createConnections } from '../broker-kit/connections';
import { brokerChannel, brokerEntries, brokerOf } from './channel';
import { brokerLimitsListed, brokerPaceLimitOf, brokerPaceOf } from './limits';
import { brokerQueuesSchema, brokerTypeSchemas, brokerViewSchemas } from './openapi';
import { BrokerView, brokerPreview } from './preview';
import { BrokerQueue, queueCodec, storedQueueCodec } from './queue';
import { brokerConfigKeys, brokerPolicyOf, BrokerSettings, brokerSettingsOf } from './settings';

/** A message to a configured broker, per entry of a trigger's `msg_broker_queues`: its type's publisher sends it. */
export const brokerDestination: Destination<BrokerQueue, typeof brokerConfigKeys, BrokerSettings, BrokerView, BrokerPolicy> = {
  kind: 'broker',
  field: 'msg_broker_queues',
  maxPerTrigger: MAX_QUEUES_PER_TRIGGER,
  configKeys: brokerConfigKeys,
  settingsOf: brokerSettingsOf,
  policyOf: brokerPolicyOf,
  codec: queueCodec,
  stored: storedQueueCodec,
  schema: brokerQueuesSchema,
  components: brokerTypeSchemas,
  viewSchemas: brokerViewSchemas,
  entries: (s) => brokerEntries(s.brokers),
  open: (s, shared) => {
    // One connection (or client) per broker settings, shared by every attempt, kept healthy.
    const connections = createConnections();
    return { channel: brokerChannel(s.brokers, connections, shared), close: () => connections.close() };
  },
  preview: (s, shared) => (p) => brokerPreview(s.brokers, shared, p),
  brokerTypeOf: (s, entry) => (entry && brokerOf(s.brokers, entry.name)?.broker_type) || 'unknown',
  paceOf: (s, queue) => brokerPaceOf(s.brokers, queue),
  paceLimitOf: (s, key) => brokerPaceLimitOf(s.brokers, key),
  limits: (s) => brokerLimitsListed(s.brokers),
};
