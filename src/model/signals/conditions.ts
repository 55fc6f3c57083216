import type { SignalEnvelope } from '../../dispatch/types';
import type { TriggerDefinition } from '../triggers/codecs';
import { evaluateCondition } from '../conditions/evaluate';
import type { ConditionResult, ConditionSubject } from '../conditions/syntax';

/** What a condition reads of a signal: `instance.`, `previous.` and `signal.` paths. */
export const subjectOf = (signal: SignalEnvelope): ConditionSubject => {
  const { instance, previous, ...fields } = signal;
  return { instance, ...(previous === undefined ? {} : { previous }), signal: fields };
};

/** A trigger's condition for a signal: held when it has none. */
export const conditionOf = (definition: TriggerDefinition, signal: SignalEnvelope): ConditionResult =>
  definition.condition === undefined ? { held: true } : evaluateCondition(definition.condition, subjectOf(signal));

type View = { id: string; version: number; definition: TriggerDefinition };

/** The matched triggers split by their condition: those it holds for, and those it does not (with the clause). */
export const byCondition = <V extends View>(views: readonly V[], signal: SignalEnvelope) => {
  const held: V[] = [];
  const failed: { view: V; result: Extract<ConditionResult, { held: false }> }[] = [];
  let subject: ConditionSubject | undefined;
  for (const view of views) {
    const condition = view.definition.condition;
    if (condition === undefined) {
      held.push(view);
      continue;
    }
    subject ??= subjectOf(signal);
    const result = evaluateCondition(condition, subject);
    if (result.held) held.push(view);
    else failed.push({ view, result });
  }
  return { held, failed };
};
