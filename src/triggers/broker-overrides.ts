import * as t from 'io-ts';
import type { BrokerQueue } from './codecs';
import type { BrokerOverrides, TriggerPolicy } from './policy';
import { splitSettingsPath } from './broker-settings';

export interface RefusedOverride { field: 'conn_details' | 'parameters'; key: string; message: string }

/**
 * The keys of a queue entry its broker does not let triggers set (`trigger_overrides` in the
 * config). Checked when a trigger is written and again at delivery, since the config may change.
 */
export const refusedOverrides = (overrides: BrokerOverrides, queue: BrokerQueue): RefusedOverride[] => {
  const refused = (field: RefusedOverride['field'], keys: string[], allowed: ReadonlySet<string> | undefined) =>
    keys.filter((k) => allowed !== undefined && !allowed.has(k))
      .map((key) => ({ field, key, message: `broker ${queue.name} does not let triggers set ${field}.${key}` }));
  return [
    ...refused('conn_details', Object.keys(queue.conn_details ?? {}), overrides.connDetails),
    ...refused('parameters', Object.keys(queue.parameters ?? {}), overrides.parameters),
  ];
};

/**
 * A queue-entry codec that also refuses the keys the named broker keeps to itself, and then
 * checks the broker's settings with the entry's keys merged over them (a missing key is named
 * where the trigger would set it: `msg_broker_queues[0].parameters.topic`).
 */
export const withBrokerOverrides = <Q extends BrokerQueue>(policy: TriggerPolicy, item: t.Type<Q, Q, unknown>) =>
  new t.Type<Q, Q, unknown>(item.name, item.is, (u, c) => {
    const result = item.validate(u, c);
    if (result._tag === 'Left') return result;
    const q = result.right;
    const at = (field: string, key: string, value: unknown) =>
      t.appendContext(t.appendContext(c, field, t.unknown, value), key, t.string, value);
    const overrides = policy.brokerOverrides?.get(q.name);
    const refused = overrides === undefined ? [] : refusedOverrides(overrides, q).map(({ field, key, message }) =>
      ({ value: q[field]?.[key], context: at(field, key, q[field]?.[key]), message }));
    if (refused.length > 0) return t.failures(refused);
    const problems = (policy.brokerSettings?.(q.name, q.conn_details, q.parameters) ?? []).map((e) => {
      const { field, key } = splitSettingsPath(e.path);
      const name = field === 'params' ? 'parameters' : 'conn_details';
      return { value: q[name]?.[key], context: at(name, key, q[name]?.[key]), message: e.message };
    });
    return problems.length > 0 ? t.failures(problems) : result;
  }, t.identity);
