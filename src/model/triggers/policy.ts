import type { DestinationPolicy } from '../../destinations/registry';

/** What the config allows; the trigger codecs check input against it (its actions through each destination's codec). */
export interface TriggerPolicy extends DestinationPolicy {
  /** contentTypeKey of each allowed content type; undefined means every one is allowed. */
  readonly allowedContentTypes: ReadonlySet<string> | undefined;
}

/** One part of a content type as compared everywhere: case and outer spaces do not count. */
export const contentTypePart = (part: string): string => part.trim().toLowerCase();

/** A content type as one set key. Not `a.b`: parts may hold dots, so that would be ambiguous. */
export const contentTypeKey = (appLabel: string, modelName: string): string =>
  JSON.stringify([contentTypePart(appLabel), contentTypePart(modelName)]);
