import * as t from 'io-ts';
import { arrayOf, closed, NonEmptyString, stringMap } from '../../kernel/closed';
import type { FieldError } from '../../kernel/field-errors';
import type { BrokerOverrides } from './policy';
import { SUPPORTED_BROKER_TYPES } from './registry';
import { addressKeys } from './addresses';
import { maySet } from './overrides';
import { brokerSettingsProblems, splitSettingsPath } from './settings-problems';
import { limitFields, limitRules } from '../port/limits';

/**
 * Which keys a trigger's `msg_broker_queues` entry may set over this broker's. Default: no
 * `conn_details` key (a trigger writer must not point the worker at another host or account),
 * any `parameters` key (they name queues and routing keys on the operator's broker).
 */
const TriggerOverrides = closed('TriggerOverrides', {}, { conn_details: arrayOf(NonEmptyString), parameters: arrayOf(NonEmptyString) });

/** Matched case-insensitively (as the origin project does), kept in lower case: a type this build publishes to. */
const BrokerType = new t.Type<string, string, unknown>(
  'BrokerType',
  (u): u is string => typeof u === 'string' && SUPPORTED_BROKER_TYPES.includes(u),
  (u, c) => {
    const lower = typeof u === 'string' ? u.toLowerCase() : undefined;
    return lower !== undefined && SUPPORTED_BROKER_TYPES.includes(lower)
      ? t.success(lower)
      : t.failure(u, c, `must be one of ${SUPPORTED_BROKER_TYPES.join(', ')}`);
  },
  String,
);

/** A broker's `limits`, shared by every trigger that publishes to it. */
const BrokerLimits = limitRules(closed('BrokerLimits', {}, limitFields));

/**
 * One entry of the config's `brokers`, whatever its type: its settings, what triggers may set
 * over them, and its limits (the operator's alone: no queue entry or override reaches them).
 */
export const Broker = closed(
  'Broker',
  { broker_type: BrokerType },
  { conn_details: stringMap(), params: stringMap(), trigger_overrides: TriggerOverrides, limits: BrokerLimits },
);
export type Broker = t.TypeOf<typeof Broker>;

/** The keys a trigger may set on one broker (see TriggerOverrides for the defaults). */
export const brokerOverridesOf = (broker: Broker): BrokerOverrides => ({
  connDetails: new Set(broker.trigger_overrides?.conn_details ?? []),
  parameters: broker.trigger_overrides?.parameters && new Set(broker.trigger_overrides.parameters),
  addressParameters: addressKeys(broker.broker_type, 'params'),
});

/**
 * Each broker's settings as far as triggers cannot complete them: a missing key a trigger may
 * not set (see `trigger_overrides`) is a config error at start, named by its key.
 */
export const brokerConfigProblems = (brokers: Readonly<Record<string, Broker>>): FieldError[] =>
  Object.entries(brokers).flatMap(([name, broker]) => {
    const overrides = brokerOverridesOf(broker);
    return brokerSettingsProblems(broker, undefined, undefined)
      .filter((e) => {
        const { field, key } = splitSettingsPath(e.path);
        return !maySet(overrides, field === 'params' ? 'parameters' : 'conn_details', key);
      })
      .map((e) => ({ path: `brokers.${name}.${e.path}`, message: e.message }));
  });
