import type * as t from 'io-ts';
import type { ActionKind } from '../../dispatch/types';
import type { Channel } from './channel';
import type { Schema } from './openapi';
import type { DestinationPolicy } from './policy';

/**
 * One kind of destination a trigger lists (its webhooks, its broker queues): what the API checks
 * and documents, and what the worker sends with. The registry (../registry.ts) holds one per kind;
 * the broker kind holds a publisher per broker type (../brokers/registry.ts).
 */
export interface Destination<Entry, SendOptions extends unknown[]> {
  readonly kind: ActionKind;
  /** The trigger field that lists entries of this kind. */
  readonly field: 'webhooks' | 'msg_broker_queues';
  /** At most this many entries per trigger. */
  readonly maxPerTrigger: number;
  /** One entry, checked against what the config allows (every write of a trigger). */
  codec(policy: DestinationPolicy): t.Type<Entry, Entry, unknown>;
  /** An entry as stored events hold it (structural: a stricter rule for new writes never hides a stored trigger). */
  readonly stored: t.Type<Entry, unknown, unknown>;
  /** The OpenAPI schema of the trigger field, for this config. */
  schema(policy: DestinationPolicy): Schema;
  /** The worker's channel: how an attempt finds, renders and sends an entry. */
  channel(...options: SendOptions): Channel<Entry>;
}
