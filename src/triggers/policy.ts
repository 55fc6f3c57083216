/** Which `conn_details` and `parameters` keys a trigger may set on one broker. */
export interface BrokerOverrides {
  readonly connDetails: ReadonlySet<string>;
  /** undefined means any key. */
  readonly parameters: ReadonlySet<string> | undefined;
}

/** What the config allows; the trigger codecs check input against it. */
export interface TriggerPolicy {
  /** undefined means any name (used to read back stored events whatever today's config says). */
  readonly brokerNames: ReadonlySet<string> | undefined;
  /** By broker name; undefined means any key on any broker (reading back stored events). */
  readonly brokerOverrides: ReadonlyMap<string, BrokerOverrides> | undefined;
  /** Lower-case `app_label.model_name`; undefined means every content type is allowed. */
  readonly allowedContentTypes: ReadonlySet<string> | undefined;
  /**
   * Empty means every http(s) URL is allowed. Sticky (flag `y`): a pattern must match from the
   * start of the URL, as Python's `re.match` does; it need not match to the end.
   */
  readonly webhookUrlPatterns: readonly RegExp[];
  /** False refuses webhook URLs whose host is a loopback/private address or `localhost`. */
  readonly allowPrivateTargets: boolean;
  /**
   * Header names and values, URL credentials and host syntax are checked. False when reading
   * back stored events written before these rules: delivery checks them again.
   */
  readonly strictWebhooks: boolean;
  /** undefined means any path (reading back stored events). */
  readonly allowedDynamicPaths: ReadonlySet<string> | undefined;
  readonly maxWebhookTimeoutSecs: number;
  readonly maxBrokerTimeoutSecs: number;
}

export const contentTypeKey = (appLabel: string, modelName: string): string =>
  `${appLabel.trim().toLowerCase()}.${modelName.trim().toLowerCase()}`;

/** Accepts any structurally valid trigger: stored events stay readable when the config changes. */
export const LENIENT_POLICY: TriggerPolicy = {
  brokerNames: undefined, brokerOverrides: undefined, allowedContentTypes: undefined, webhookUrlPatterns: [],
  allowPrivateTargets: true, strictWebhooks: false,
  allowedDynamicPaths: undefined, maxWebhookTimeoutSecs: Infinity, maxBrokerTimeoutSecs: Infinity,
};
