import * as t from 'io-ts';
import type { BrokerQueue } from './codecs';
import type { BrokerOverrides, TriggerPolicy } from './policy';

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

/** A queue-entry codec that also refuses the keys the named broker keeps to itself. */
export const withBrokerOverrides = <Q extends BrokerQueue>(policy: TriggerPolicy, item: t.Type<Q, Q, unknown>) =>
  new t.Type<Q, Q, unknown>(item.name, item.is, (u, c) => {
    const result = item.validate(u, c);
    const overrides = result._tag === 'Right' ? policy.brokerOverrides?.get(result.right.name) : undefined;
    if (result._tag === 'Left' || overrides === undefined) return result;
    const errors = refusedOverrides(overrides, result.right).map(({ field, key, message }) => {
      const map = result.right[field];
      const ctx = t.appendContext(t.appendContext(c, field, t.unknown, map), key, t.string, map?.[key]);
      return { value: map?.[key], context: ctx, message };
    });
    return errors.length > 0 ? t.failures(errors) : result;
  }, t.identity);
