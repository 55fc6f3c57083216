import { ApplicationFailure, Context } from '@temporalio/activity';
import type { ActionPlan, FailureDetails, RetrySettings, SignalEnvelope } from '../src/dispatch/types';
import type { TriggerDefinition } from '../src/triggers/codecs';
import { DefinitionAt } from './definition-at';
import { DynamicValueError, DynamicValueSource } from './dynamic-values';
import { dynamicPathsIn, DynamicValues, RenderTooLarge } from './render';
import { backoffMs } from './retry';
import { boundText } from '../src/dispatch/bounds';

/**
 * What every action activity receives from the workflow: references, the signal, the retry
 * schedule, and how many attempts ran before this activity (its first attempt ran locally).
 */
export interface ActionArgs { plan: ActionPlan; signal: SignalEnvelope; retry: RetrySettings; attemptsBefore?: number }

/** This attempt's number across the action: Temporal counts from 1 within each activity. */
export const attemptOf = (args: ActionArgs) => Context.current().info.attempt + (args.attemptsBefore ?? 0);

export interface ActionDeps {
  /** The trigger's definition at a version (cached: versions never change). */
  readonly definitionAt: DefinitionAt;
  readonly dynamicValues: DynamicValueSource;
}

/** An activity failure carrying attempt and status for the dispatch status; its message holds no secrets. */
export const failure = (text: string, type: string, details: FailureDetails, retryable: boolean, delayMs?: number) => {
  const message = boundText(text);
  return retryable
    ? ApplicationFailure.create({
      message, type, details: [delayMs === undefined ? details : { ...details, retryDelayMs: delayMs }],
      ...(delayMs === undefined ? {} : { nextRetryDelay: delayMs }),
    })
    : ApplicationFailure.create({ message, type, details: [details], nonRetryable: true });
};

/** Renders, or fails the action for good: a rendering too large now is too large on every retry. */
export const rendering = <A>(attempt: number, render: () => A): A => {
  try {
    return render();
  } catch (e) {
    if (e instanceof RenderTooLarge) throw failure(e.message, 'RenderTooLarge', { attempt }, false);
    throw e;
  }
};

/**
 * The definition at the recorded version and the dynamic values its action uses. `pick`
 * returns the values holding templates, or undefined when the action does not exist.
 */
export const loadAction = async (deps: ActionDeps, { plan, retry }: ActionArgs, attempt: number,
  pick: (d: TriggerDefinition) => unknown[] | undefined): Promise<{ definition: TriggerDefinition; dynamic: DynamicValues }> => {
  const definition = await deps.definitionAt(plan.triggerId, plan.version);
  const templated = definition && pick(definition);
  if (!definition || !templated) {
    throw failure(`trigger ${plan.triggerId} version ${plan.version} has no ${plan.kind} ${plan.index}`, 'ActionMissing', { attempt }, false);
  }
  try {
    return { definition, dynamic: await deps.dynamicValues.resolve(dynamicPathsIn(templated)) };
  } catch (e) {
    // The message names the path, never a value. A missing value may appear later: retried.
    if (e instanceof DynamicValueError) throw failure(e.message, 'DynamicValue', { attempt }, true, backoffMs(attempt, retry));
    throw e;
  }
};
