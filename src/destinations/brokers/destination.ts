import { MAX_QUEUES_PER_TRIGGER } from '../../kernel/limits';
import type { Destination } from '../port/destination';
import type { Connections } from '../broker-kit/connections';
import { brokerChannel, BrokerGuard, Brokers } from './channel';
import { brokerQueuesSchema } from './openapi';
import { BrokerQueue, queueCodec, storedQueueCodec } from './queue';

/** A message to a configured broker, per entry of a trigger's `msg_broker_queues`: its type's publisher sends it. */
export const brokerDestination: Destination<BrokerQueue, [Brokers, Connections, BrokerGuard]> = {
  kind: 'broker',
  field: 'msg_broker_queues',
  maxPerTrigger: MAX_QUEUES_PER_TRIGGER,
  codec: queueCodec,
  stored: storedQueueCodec,
  schema: brokerQueuesSchema,
  channel: brokerChannel,
};
