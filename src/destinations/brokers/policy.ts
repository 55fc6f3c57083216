import type { FieldError } from '../../kernel/field-errors';
import type { SharedPolicy } from '../port/policy';

/** Which `conn_details` and `parameters` keys a trigger may set on one broker. */
export interface BrokerOverrides {
  readonly connDetails: ReadonlySet<string>;
  /** undefined means any key but `addressParameters`. */
  readonly parameters: ReadonlySet<string> | undefined;
  /** The broker type's `params` keys that say where messages go: refused unless `parameters` lists them. */
  readonly addressParameters: ReadonlySet<string>;
}

/** What the config allows a trigger's broker queues. */
export interface BrokerPolicy extends SharedPolicy {
  /** undefined means any name (used to read back stored events whatever today's config says). */
  readonly brokerNames: ReadonlySet<string> | undefined;
  /** By broker name; undefined means any key on any broker (reading back stored events). */
  readonly brokerOverrides: ReadonlyMap<string, BrokerOverrides> | undefined;
  /** By broker name: its `broker_type` (the OpenAPI document says which keys each name reads). */
  readonly brokerTypes?: ReadonlyMap<string, string>;
  /** The missing or bad keys of a broker's settings with a queue entry's keys merged over them. */
  readonly brokerSettings?: (
    name: string,
    conn: Record<string, string> | undefined,
    params: Record<string, string> | undefined,
  ) => FieldError[];
}
