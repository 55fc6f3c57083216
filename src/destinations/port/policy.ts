import type { FieldError } from '../../kernel/field-errors';

/** Which `conn_details` and `parameters` keys a trigger may set on one broker. */
export interface BrokerOverrides {
  readonly connDetails: ReadonlySet<string>;
  /** undefined means any key but `addressParameters`. */
  readonly parameters: ReadonlySet<string> | undefined;
  /** The broker type's `params` keys that say where messages go: refused unless `parameters` lists them. */
  readonly addressParameters: ReadonlySet<string>;
}

/** What the config allows a trigger's actions to be; each destination's codec checks its entries against it. */
export interface DestinationPolicy {
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
  /**
   * Empty means every http(s) URL is allowed. Sticky (flag `y`): a pattern must match from the
   * start of the URL, as Python's `re.match` does; it need not match to the end.
   */
  readonly webhookUrlPatterns: readonly RegExp[];
  /** False refuses webhook URLs whose host is a loopback/private address or `localhost`. */
  readonly allowPrivateTargets: boolean;
  /** undefined means any path (reading back stored events). */
  readonly allowedDynamicPaths: ReadonlySet<string> | undefined;
  /** The names of the config's `signing_secrets`; undefined means any name (reading back stored events). */
  readonly signingSecretNames?: ReadonlySet<string>;
  readonly maxWebhookTimeoutSecs: number;
  readonly maxBrokerTimeoutSecs: number;
}
