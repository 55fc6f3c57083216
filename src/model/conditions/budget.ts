import { MATCH_STEPS_PER_CONDITION, MATCH_STEPS_PER_SIGNAL } from '../../kernel/limits';

/**
 * Counts the steps one condition's evaluation takes: every value read or compared is a step, and
 * so is every key of an object listed. An object's keys are listed once per signal and kept
 * (`keys`), so comparing with an object costs the keys of the condition's side, never the
 * signal's again. Past `limit` the evaluation stops (TooCostly).
 */
export interface Meter {
  steps: number;
  readonly limit?: number;
  readonly keys?: WeakMap<object, readonly string[]>;
}

/** The meter ran past its limit; `clause` is where, once the evaluation knows it. */
export class TooCostly extends Error {
  clause: string | undefined;
  constructor() {
    super('too costly to evaluate');
    this.name = 'TooCostly';
  }
}

export const TOO_COSTLY =
  `is too costly to evaluate: one condition may take ${MATCH_STEPS_PER_CONDITION.toLocaleString('en')} steps, ` +
  `and the conditions one signal meets ${MATCH_STEPS_PER_SIGNAL.toLocaleString('en')} together`;

/** Takes `n` steps of the meter's budget; throws TooCostly past its limit. */
export const spend = (meter: Meter | undefined, n = 1) => {
  if (!meter) return;
  meter.steps += n;
  if (meter.limit !== undefined && meter.steps > meter.limit) throw new TooCostly();
};

/** What one signal's matching may still spend, over all its triggers' conditions. */
export interface SignalBudget {
  left: number;
  readonly keys: WeakMap<object, readonly string[]>;
}

export const signalBudget = (): SignalBudget => ({ left: MATCH_STEPS_PER_SIGNAL, keys: new WeakMap() });

/** The meter of one condition: its own limit, within what the signal has left. */
export const conditionMeter = (budget: SignalBudget): Meter => ({
  steps: 0,
  limit: Math.min(MATCH_STEPS_PER_CONDITION, budget.left),
  keys: budget.keys,
});

/** Charges the signal's budget with what a condition spent. */
export const charge = (budget: SignalBudget, meter: Meter) => {
  budget.left = Math.max(0, budget.left - meter.steps);
};
