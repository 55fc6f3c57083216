import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { MatchedTrigger } from './types';

/**
 * The search attributes that make dispatches findable in the Temporal UI. Pure: the workflow
 * bundle imports this file too. src/temporal/search-attributes.ts registers them.
 */
export const TriggerIds = defineSearchAttributeKey('TriggerIds', SearchAttributeType.KEYWORD_LIST);
export const SignalName = defineSearchAttributeKey('SignalName', SearchAttributeType.KEYWORD);
export const ContentType = defineSearchAttributeKey('ContentType', SearchAttributeType.KEYWORD);
/** Set when a dispatch ends: the triggers with an action that failed for good (found by `redeliver-failed`). */
export const FailedTriggerIds = defineSearchAttributeKey('FailedTriggerIds', SearchAttributeType.KEYWORD_LIST);

/** Temporal refuses a search attribute value over 2 KB (as JSON), failing the workflow task. */
const SEARCH_ATTRIBUTE_BYTES = 2000;

/** The trigger ids (each once) that fit the limit, first matched first; the history records them all. */
export const searchableTriggerIds = (triggers: readonly Pick<MatchedTrigger, 'triggerId'>[]): string[] => {
  let bytes = 2; // the brackets
  const fitting = new Set<string>();
  for (const { triggerId } of triggers) {
    if (fitting.has(triggerId)) continue;
    bytes += triggerId.length + 3; // quotes and comma
    if (bytes > SEARCH_ATTRIBUTE_BYTES) break;
    fitting.add(triggerId);
  }
  return [...fitting];
};
