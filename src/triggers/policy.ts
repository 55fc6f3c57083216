/** What the config allows; the trigger codecs check input against it. */
export interface TriggerPolicy {
  /** undefined means any name (used to read back stored events whatever today's config says). */
  readonly brokerNames: ReadonlySet<string> | undefined;
  /** Lower-case `app_label.model_name`; undefined means every content type is allowed. */
  readonly allowedContentTypes: ReadonlySet<string> | undefined;
  /** Empty means every http(s) URL is allowed. */
  readonly webhookUrlPatterns: readonly RegExp[];
  /** undefined means any path (reading back stored events). */
  readonly allowedDynamicPaths: ReadonlySet<string> | undefined;
  readonly maxWebhookTimeoutSecs: number;
  readonly maxBrokerTimeoutSecs: number;
}

export const contentTypeKey = (appLabel: string, modelName: string): string =>
  `${appLabel.trim().toLowerCase()}.${modelName.trim().toLowerCase()}`;

/** Accepts any structurally valid trigger: stored events stay readable when the config changes. */
export const LENIENT_POLICY: TriggerPolicy = {
  brokerNames: undefined, allowedContentTypes: undefined, webhookUrlPatterns: [],
  allowedDynamicPaths: undefined, maxWebhookTimeoutSecs: Infinity, maxBrokerTimeoutSecs: Infinity,
};
