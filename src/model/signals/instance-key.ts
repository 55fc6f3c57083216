import { createHash } from 'node:crypto';
import type { SignalEnvelope, TriggerOrdering } from '../../dispatch/types';

/** The instance a signal is about: its `instance_key`, else `instance.pk`, else `instance.id`, as a string. */
export const instanceKeyOf = (signal: SignalEnvelope): string | undefined => {
  for (const v of [signal.instance_key, signal.instance.pk, signal.instance.id]) {
    if (typeof v === 'string' && v !== '') return v;
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  }
  return undefined;
};

/** Short and plain keys name their order as they are; a plain key that looks like a hash is hashed too, so no two keys share an order. */
const PLAIN_KEY = /^(?!sha256-)[A-Za-z0-9._:-]{1,64}$/;

/** The workflow id of one trigger's order for one instance: the key as it is when short and plain, else its hash. */
export const orderWorkflowIdOf = (triggerId: string, instanceKey: string) =>
  `ordered-${triggerId}-${PLAIN_KEY.test(instanceKey) ? instanceKey : `sha256-${createHash('sha256').update(instanceKey).digest('hex').slice(0, 40)}`}`;

export const NO_INSTANCE_KEY = 'the signal has no instance_key, instance.pk or instance.id: sent without waiting for earlier signals';

/** How a `per_instance` trigger's actions for this signal are ordered. */
export const orderingFor = (triggerId: string, signal: SignalEnvelope): TriggerOrdering => {
  const key = instanceKeyOf(signal);
  return key === undefined ? { unordered: NO_INSTANCE_KEY } : { instanceKey: key, orderWorkflowId: orderWorkflowIdOf(triggerId, key) };
};
