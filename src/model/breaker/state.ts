/**
 * The circuit breaker of one trigger, as pure functions over its own stream
 * `breaker-<trigger id>`: each final outcome of an action's dispatch is a fact there, the fold
 * counts the current run of failures per action, and `onFailure` says when the run trips the
 * breaker. No clock inside: the outcome carries its time.
 *
 * Counts belong to one version of the trigger: an outcome of a newer version starts afresh
 * (an edit, or the reactivation, may have fixed the action, and indexes may have moved); an
 * outcome of an older version (a dispatch still retrying from before) changes nothing. Which
 * actions failed last, whatever the version, is kept until one of their deliveries succeeds:
 * that delivery is recorded as the action's recovery (the alerts say so), after a reactivation too.
 */

export interface BreakerSettings {
  /** Consecutive dispatches of one action that failed every attempt. */
  readonly consecutiveFailures: number;
  /** How long an action may keep failing, from the first failure of its current run. */
  readonly failingForMs: number;
}

/** An action within a trigger: `w<index>` for a webhook, `q<index>` for a broker queue (as in delivery ids). */
export type ActionKey = string;

export type BreakerEvent =
  | { type: 'ActionFailed'; data: { version: number; action: ActionKey; at: string } }
  | { type: 'ActionRecovered'; data: { version: number; action: ActionKey } };

export interface FailureRun {
  readonly failures: number;
  readonly since: string;
}

export interface BreakerState {
  /** The trigger version the runs belong to. */
  readonly version: number;
  readonly runs: Readonly<Record<ActionKey, FailureRun>>;
  /** The actions whose last final outcome, at any version, was a failure. */
  readonly failed: readonly ActionKey[];
}

export const initialBreaker: BreakerState = { version: 0, runs: {}, failed: [] };

const without = (keys: readonly ActionKey[], key: ActionKey) => (keys.includes(key) ? keys.filter((k) => k !== key) : keys);

export const evolveBreaker = (state: BreakerState, event: BreakerEvent): BreakerState => {
  const { version, action } = event.data;
  if (version < state.version) return state;
  const runs = version > state.version ? {} : state.runs;
  switch (event.type) {
    case 'ActionFailed': {
      const run = Object.hasOwn(runs, action) ? runs[action] : undefined;
      const failed = state.failed.includes(action) ? state.failed : [...state.failed, action];
      return { version, runs: { ...runs, [action]: { failures: (run?.failures ?? 0) + 1, since: run?.since ?? event.data.at } }, failed };
    }
    case 'ActionRecovered': {
      const { [action]: _ended, ...rest } = runs;
      return { version, runs: rest, failed: without(state.failed, action) };
    }
    default: {
      const _never: never = event;
      return state;
    }
  }
};

/** Why a run tripped the breaker. */
export type Trip =
  { rule: 'gone' } | { rule: 'consecutive_failures'; failures: number } | { rule: 'failing_for'; failures: number; since: string };

export interface FinalFailure {
  readonly version: number;
  readonly action: ActionKey;
  readonly at: Date;
  readonly gone: boolean;
}

/**
 * A dispatch of an action failed every attempt: the event to record (none for an older
 * version) and whether the breaker trips. A `gone` answer (410) trips it at once.
 */
export const onFailure = (state: BreakerState, f: FinalFailure, settings: BreakerSettings): { events: BreakerEvent[]; trip?: Trip } => {
  if (f.version < state.version) return { events: [] };
  const event: BreakerEvent = { type: 'ActionFailed', data: { version: f.version, action: f.action, at: f.at.toISOString() } };
  const run = evolveBreaker(state, event).runs[f.action]!;
  if (f.gone) return { events: [event], trip: { rule: 'gone' } };
  if (run.failures >= settings.consecutiveFailures)
    return { events: [event], trip: { rule: 'consecutive_failures', failures: run.failures } };
  if (f.at.getTime() - Date.parse(run.since) >= settings.failingForMs) {
    return { events: [event], trip: { rule: 'failing_for', failures: run.failures, since: run.since } };
  }
  return { events: [event] };
};

/** A dispatch of an action delivered: the action recovered, if its last final outcome was a failure (at this version or one before). */
export const onDelivered = (state: BreakerState, version: number, action: ActionKey): BreakerEvent[] =>
  version >= state.version && state.failed.includes(action) ? [{ type: 'ActionRecovered', data: { version, action } }] : [];

/** Nothing before this event matters any more: the stream may be truncated up to it. */
export const startsAfresh = (before: BreakerState, event: BreakerEvent): boolean => {
  const after = evolveBreaker(before, event);
  return Object.keys(after.runs).length === 0 && after.failed.length === 0;
};
