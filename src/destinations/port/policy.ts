/**
 * What the config allows every kind's entries: its shared keys. Each kind's codec checks its
 * entries against these and its own part (src/destinations/webhook/policy.ts,
 * src/destinations/brokers/policy.ts).
 */
export interface SharedPolicy {
  /** False refuses targets whose host is a loopback/private address or `localhost`. */
  readonly allowPrivateTargets: boolean;
  /** undefined means any path (reading back stored events). */
  readonly allowedDynamicPaths: ReadonlySet<string> | undefined;
  readonly maxWebhookTimeoutSecs: number;
  readonly maxBrokerTimeoutSecs: number;
}
