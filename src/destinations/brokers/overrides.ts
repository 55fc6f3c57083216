import * as t from 'io-ts';
import type { BrokerQueue } from './queue';
import type { BrokerOverrides, BrokerPolicy } from './policy';
import { splitSettingsPath } from './settings-problems';
import { PRIVATE_HOST_PROBLEM } from '../port/entry-rules';
import { addressKind, hostsOf } from './addresses';
import { isLocalHostSpelling } from '../../kernel/hosts';

export interface RefusedOverride {
  field: 'conn_details' | 'parameters';
  key: string;
  message: string;
}

/** Whether a trigger's queue entry may set this key on a broker with these overrides. */
export const maySet = (overrides: BrokerOverrides, field: RefusedOverride['field'], key: string): boolean => {
  if (field === 'conn_details') return overrides.connDetails.has(key);
  return overrides.parameters === undefined ? !overrides.addressParameters.has(key) : overrides.parameters.has(key);
};

/**
 * The keys of a queue entry its broker does not let triggers set (`trigger_overrides` in the
 * config). Checked when a trigger is written and again at delivery, since the config may change.
 */
export const refusedOverrides = (overrides: BrokerOverrides, queue: BrokerQueue): RefusedOverride[] => {
  const refused = (field: RefusedOverride['field'], map: Record<string, string> | undefined) =>
    Object.keys(map ?? {})
      .filter((key) => !maySet(overrides, field, key))
      .map((key) => ({
        field,
        key,
        message:
          `broker ${queue.name} does not let triggers set ${field}.${key}` +
          (field === 'parameters' && overrides.addressParameters.has(key) ? ' (it says where messages go: see trigger_overrides)' : ''),
      }));
  return [...refused('conn_details', queue.conn_details), ...refused('parameters', queue.parameters)];
};

/**
 * The keys of a queue entry whose literal value names a local host (loopback, private,
 * link-local, `localhost`): refused when written while allow_private_targets is off. A templated
 * value is checked once rendered, before the worker connects.
 */
const localAddresses = (brokerType: string | undefined, queue: BrokerQueue) => {
  if (brokerType === undefined) return [];
  const local = (field: RefusedOverride['field'], map: Record<string, string> | undefined) =>
    Object.entries(map ?? {})
      .filter(([key, value]) => {
        const kind = addressKind(brokerType, field === 'parameters' ? 'params' : 'conn_details', key);
        if (kind === undefined || value.includes('{{')) return false;
        const hosts = hostsOf(kind, value);
        return hosts === undefined || hosts.some(isLocalHostSpelling);
      })
      .map(([key]) => ({ field, key }));
  return [...local('conn_details', queue.conn_details), ...local('parameters', queue.parameters)];
};

/**
 * A queue-entry codec that also refuses the keys the named broker keeps to itself, and then
 * checks the broker's settings with the entry's keys merged over them (a missing key is named
 * where the trigger would set it: `msg_broker_queues[0].parameters.topic`).
 */
export const withBrokerOverrides = <Q extends BrokerQueue>(policy: BrokerPolicy, item: t.Type<Q, Q, unknown>) =>
  new t.Type<Q, Q, unknown>(
    item.name,
    item.is,
    (u, c) => {
      const result = item.validate(u, c);
      if (result._tag === 'Left') return result;
      const q = result.right;
      const at = (field: string, key: string, value: unknown) =>
        t.appendContext(t.appendContext(c, field, t.unknown, value), key, t.string, value);
      const overrides = policy.brokerOverrides?.get(q.name);
      const refused =
        overrides === undefined
          ? []
          : refusedOverrides(overrides, q).map(({ field, key, message }) => ({
              value: q[field]?.[key],
              context: at(field, key, q[field]?.[key]),
              message,
            }));
      if (refused.length > 0) return t.failures(refused);
      const local = policy.allowPrivateTargets
        ? []
        : localAddresses(policy.brokerTypes?.get(q.name), q).map(({ field, key }) => ({
            value: q[field]?.[key],
            context: at(field, key, q[field]?.[key]),
            message: PRIVATE_HOST_PROBLEM,
          }));
      if (local.length > 0) return t.failures(local);
      const problems = (policy.brokerSettings?.(q.name, q.conn_details, q.parameters) ?? []).map((e) => {
        const { field, key } = splitSettingsPath(e.path);
        const name = field === 'params' ? 'parameters' : 'conn_details';
        return { value: q[name]?.[key], context: at(name, key, q[name]?.[key]), message: e.message };
      });
      return problems.length > 0 ? t.failures(problems) : result;
    },
    t.identity,
  );
