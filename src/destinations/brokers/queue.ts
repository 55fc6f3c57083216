import * as t from 'io-ts';
import { checked, closed, described, storedShape, stringMap } from '../../kernel/closed';
import type { BrokerPolicy } from './policy';
import { templatedBy, timeoutSecs } from '../port/entry-rules';
import { withBrokerOverrides } from './overrides';
import { templatedJson } from '../../kernel/templated-json';
import type { JsonValue } from '../../kernel/json-value';

/** One entry of a trigger's `msg_broker_queues`: a configured broker by name, and the keys the trigger sets over its own. */
export interface BrokerQueue {
  name: string;
  conn_details?: Record<string, string>;
  parameters?: Record<string, string>;
  timeout_secs?: number;
  /** This queue's own payload template: published instead of the trigger's. */
  payload?: JsonValue;
}

/** The codec of one `msg_broker_queues` entry, checking everything the config constrains. */
export const queueCodec = (policy: BrokerPolicy) => {
  const templated = templatedBy(policy);
  const BrokerName = checked(described(t.string, 'must be a string'), 'BrokerName', (n) =>
    policy.brokerNames === undefined || policy.brokerNames.has(n)
      ? undefined
      : `must name a broker in the config (${[...policy.brokerNames].join(', ') || 'none configured'})`,
  );
  return withBrokerOverrides(
    policy,
    closed(
      'BrokerQueue',
      { name: BrokerName },
      {
        conn_details: stringMap(templated),
        parameters: stringMap(templated),
        timeout_secs: timeoutSecs(policy.maxBrokerTimeoutSecs),
        payload: templatedJson(policy.allowedDynamicPaths),
      },
      {
        nullable: ['payload'],
        hints: {
          connection_details: 'is not a known field; did you mean conn_details?',
          params: 'is not a known field; did you mean parameters?',
        },
      },
    ),
  );
};

/** A `msg_broker_queues` entry as stored events hold it: structural, never stricter than what was ever written. */
export const storedQueueCodec = storedShape(
  { name: t.string },
  {
    conn_details: t.record(t.string, t.string),
    parameters: t.record(t.string, t.string),
    timeout_secs: t.number,
    payload: templatedJson(undefined),
  },
);
