import * as t from 'io-ts';
import type { BrokerPolicy } from './policy';
import type { SharedPolicy } from '../port/policy';
import type { KindSettings, SectionOf } from '../port/destination';
import { Broker, brokerConfigProblems, brokerOverridesOf } from './config';
import { brokerSettingsProblems } from './settings-problems';
import { brokerOf, Brokers } from './channel';

/** The broker kind's key of the config file: the brokers triggers publish to, by name. */
export const brokerConfigKeys = { brokers: t.record(t.string, Broker) };

/** What the broker kind keeps: the configured brokers (their settings are read at each attempt). */
export interface BrokerSettings {
  readonly brokers: Brokers;
}

/** The brokers, and each one's settings that no trigger may complete, named at start. */
export const brokerSettingsOf = (section: SectionOf<typeof brokerConfigKeys>): KindSettings<BrokerSettings> => {
  const brokers = section.brokers ?? {};
  return { settings: { brokers }, errors: brokerConfigProblems(brokers) };
};

/** Which brokers a trigger may name, which keys it may set on each, and how a merged entry is checked. */
export const brokerPolicyOf = ({ brokers }: BrokerSettings): Omit<BrokerPolicy, keyof SharedPolicy> => ({
  brokerNames: new Set(Object.keys(brokers)),
  brokerOverrides: new Map(Object.entries(brokers).map(([name, b]) => [name, brokerOverridesOf(b)])),
  brokerTypes: new Map(Object.entries(brokers).map(([name, b]) => [name, b.broker_type])),
  brokerSettings: (name, conn, params) => {
    const broker = brokerOf(brokers, name);
    return broker ? brokerSettingsProblems(broker, conn, params) : [];
  },
});
