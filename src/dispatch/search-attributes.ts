import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { MatchedTrigger } from './types';

/**
 * The search attributes that make dispatches findable in the Temporal UI. Pure: the workflow
 * bundle imports this file too. src/temporal/search-attributes.ts registers them.
 */
export const TriggerIds = defineSearchAttributeKey('TriggerIds', SearchAttributeType.KEYWORD_LIST);
export const SignalName = defineSearchAttributeKey('SignalName', SearchAttributeType.KEYWORD);
export const ContentType = defineSearchAttributeKey('ContentType', SearchAttributeType.KEYWORD);

/** Temporal refuses a search attribute value over 2 KB (as JSON), failing the workflow task. */
const SEARCH_ATTRIBUTE_BYTES = 2000;

/** The matched trigger ids that fit the limit, first matched first; the history records them all. */
export const searchableTriggerIds = (triggers: readonly MatchedTrigger[]): string[] => {
  let bytes = 2; // the brackets
  const fitting: string[] = [];
  for (const { triggerId } of triggers) {
    bytes += triggerId.length + 3; // quotes and comma
    if (bytes > SEARCH_ATTRIBUTE_BYTES) break;
    fitting.push(triggerId);
  }
  return fitting;
};
