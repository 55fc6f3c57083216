import type { Pace, PaceLimit } from '../../dispatch/pacing';
import { ConfiguredLimit, paceKey, paceLimitFrom, paceNameIn } from '../port/limits';
import { brokerOf, Brokers } from './channel';

/** The limit a broker's `limits` sets (`broker:<name>`): every queue entry naming that broker shares it. */
export const brokerPaceLimitOf = (brokers: Brokers, key: string): PaceLimit | undefined => {
  const name = paceNameIn('broker', key);
  const limits = name === undefined ? undefined : brokerOf(brokers, name)?.limits;
  return limits && paceLimitFrom(limits);
};

/** The limit over a queue entry: its broker's, whatever the entry sets over the broker's settings. */
export const brokerPaceOf = (brokers: Brokers, queue: { name: string }): Pace | undefined => {
  const key = paceKey('broker', queue.name);
  const limit = brokerPaceLimitOf(brokers, key);
  return limit && { key, ...limit };
};

/** Every broker with `limits`, by name; a broker's limit covers the broker itself. */
export const brokerLimitsListed = (brokers: Brokers): ConfiguredLimit[] =>
  Object.entries(brokers)
    .flatMap(([name, broker]) =>
      broker.limits ? [{ key: paceKey('broker', name), limit: paceLimitFrom(broker.limits), matches: name }] : [],
    )
    .sort((a, b) => a.key.localeCompare(b.key));
