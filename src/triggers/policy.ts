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

/** One part of a content type as compared everywhere: case and outer spaces do not count. */
export const contentTypePart = (part: string): string => part.trim().toLowerCase();

/** For messages and the config's allow list only; never split again (parts may hold dots). */
export const contentTypeKey = (appLabel: string, modelName: string): string =>
  `${contentTypePart(appLabel)}.${contentTypePart(modelName)}`;
