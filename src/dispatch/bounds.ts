import { MAX_OUTCOME_TEXT, MAX_WARNINGS_PER_ACTION } from '../kernel/limits';

/** For the workflow, which may import only src/dispatch: the size of a batch of first attempts. */
export { FIRST_ATTEMPT_BATCH } from '../kernel/limits';

/**
 * Texts that enter an activity's result or the workflow's state are bounded, so no trigger can
 * push a dispatch past Temporal's 2 MB payload limit (a result over it fails the workflow task
 * forever). Pure: the workflow bundle imports this file.
 */
export const boundText = (text: string): string => (text.length <= MAX_OUTCOME_TEXT ? text : `${text.slice(0, MAX_OUTCOME_TEXT - 1)}…`);

/** The first warnings, each bounded, then one line counting the rest. Bounding twice changes nothing. */
export const boundWarnings = (warnings: readonly string[]): string[] => {
  if (warnings.length <= MAX_WARNINGS_PER_ACTION + 1) return warnings.map(boundText);
  const kept = warnings.slice(0, MAX_WARNINGS_PER_ACTION).map(boundText);
  const rest = warnings.length - kept.length;
  return rest > 0 ? [...kept, `… and ${rest} more`] : kept;
};
