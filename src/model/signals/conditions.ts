import type { SignalEnvelope } from '../../dispatch/types';
import type { TriggerDefinition } from '../triggers/codecs';
import { evaluateCondition } from '../conditions/evaluate';
import { charge, conditionMeter, signalBudget } from '../conditions/budget';
import type { ConditionResult, ConditionSubject } from '../conditions/syntax';

/** What a condition reads of a signal: `instance.`, `previous.` and `signal.` paths. */
export const subjectOf = (signal: SignalEnvelope): ConditionSubject => {
  const { instance, previous, ...fields } = signal;
  return { instance, ...(previous === undefined ? {} : { previous }), signal: fields };
};

/** A trigger's condition for a signal (a dry run): held when it has none; the signal's budget is its alone. */
export const conditionOf = (definition: TriggerDefinition, signal: SignalEnvelope): ConditionResult =>
  definition.condition === undefined
    ? { held: true }
    : evaluateCondition(definition.condition, subjectOf(signal), conditionMeter(signalBudget()));

type View = { id: string; version: number; definition: TriggerDefinition };

/**
 * The matched triggers split by their condition: those it holds for, and those it does not (with
 * the clause). Each condition has a budget of steps, within one for the signal (src/model/conditions/budget.ts).
 */
export const byCondition = <V extends View>(views: readonly V[], signal: SignalEnvelope) => {
  const held: V[] = [];
  const failed: { view: V; result: Extract<ConditionResult, { held: false }> }[] = [];
  let subject: ConditionSubject | undefined;
  const budget = signalBudget();
  for (const view of views) {
    const condition = view.definition.condition;
    if (condition === undefined) {
      held.push(view);
      continue;
    }
    subject ??= subjectOf(signal);
    const meter = conditionMeter(budget);
    const result = evaluateCondition(condition, subject, meter);
    charge(budget, meter);
    if (result.held) held.push(view);
    else failed.push({ view, result });
  }
  return { held, failed };
};
