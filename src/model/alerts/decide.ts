import type { Alert, AlertAction } from './alert';

/**
 * Which alerts the breaker's facts raise, as pure functions: one alert per change of an action's
 * state, never one per failure. An action failing every attempt of its dispatches goes through
 * `action.exhausted` (its first dispatch failed for good), `action.failing` at each configured
 * percent of the breaker's threshold, then the trigger's deactivation (its own alert, from the
 * trigger's history), and `action.recovered` once a delivery succeeds again.
 */

/** An action with failures since its last delivery: the current run (at one trigger version) and the whole streak. */
export interface Watched {
  version: number;
  /** Dispatches failed in the run at `version` (the breaker's count). */
  failures: number;
  /** The highest percent of the threshold already alerted in that run (0: none). */
  level: number;
  /** Dispatches failed since the last delivery, over every version. */
  streak: number;
  first: string;
  last: string;
}

/** Watched actions by `<trigger id>/<action key>`. */
export type Watching = Readonly<Record<string, Watched>>;

export interface AlertRules {
  /** The breaker's `consecutive_failures`. */
  readonly threshold: number;
  /** Ascending percents of it at which `action.failing` is raised. */
  readonly failingAtPercent: readonly number[];
  /** Where a trigger's admin page is: `<adminUrl>#/triggers/<id>`. */
  readonly adminUrl: string;
}

/** A breaker fact as the follower reads it, with the position that makes the alert's id. */
export interface BreakerFact {
  position: bigint;
  triggerId: string;
  type: 'ActionFailed' | 'ActionRecovered';
  version: number;
  action: AlertAction;
  /** ActionFailed: when the dispatch failed for good. */
  at?: string;
  /** When the fact was recorded (ActionRecovered's time). */
  recordedAt: string;
}

export const watchKeyOf = (triggerId: string, actionKey: string) => `${triggerId}/${actionKey}`;
export const triggerLinkOf = (rules: AlertRules, triggerId: string) => `${rules.adminUrl}#/triggers/${encodeURIComponent(triggerId)}`;

/** The failures at which each percent is reached; a percent reached only at the threshold is the deactivation's to tell. */
const levelAt = (rules: AlertRules, failures: number) => {
  let level = 0;
  for (const percent of rules.failingAtPercent) {
    const at = Math.max(1, Math.ceil((rules.threshold * percent) / 100));
    if (failures >= at && at < rules.threshold) level = percent;
  }
  return level;
};

const base = (f: BreakerFact, rules: AlertRules) => ({
  id: `alrt_b${f.position}`,
  trigger_id: f.triggerId,
  action: f.action,
  link: triggerLinkOf(rules, f.triggerId),
});

const failed = (watching: Watching, f: BreakerFact, rules: AlertRules): { watching: Watching; alert?: Alert } => {
  const key = watchKeyOf(f.triggerId, f.action.key);
  const before = watching[key];
  // An older version's dispatch still retrying: the breaker does not count it either.
  if (before && f.version < before.version) return { watching };
  const at = f.at ?? f.recordedAt;
  const sameRun = before?.version === f.version;
  const w: Watched = {
    version: f.version,
    failures: sameRun ? before.failures + 1 : 1,
    level: sameRun ? before.level : 0,
    streak: (before?.streak ?? 0) + 1,
    first: before?.first ?? at,
    last: at,
  };
  const next = { ...watching, [key]: w };
  const facts = { failed_dispatches: w.failures, threshold: rules.threshold, first_failure_at: w.first, last_failure_at: w.last };
  const level = levelAt(rules, w.failures);
  if (level > w.level) {
    const summary = `${f.action.name} failed every attempt of ${w.failures} consecutive dispatches (${level} % of the ${rules.threshold} that deactivate its trigger)`;
    return {
      watching: { ...next, [key]: { ...w, level } },
      alert: { ...base(f, rules), type: 'action.failing', occurred_at: at, summary, percent: level, ...facts },
    };
  }
  if (w.failures === 1 && w.failures < rules.threshold) {
    const summary = `${f.action.name} failed every attempt of a dispatch: the delivery failed for good`;
    return { watching: next, alert: { ...base(f, rules), type: 'action.exhausted', occurred_at: at, summary, ...facts } };
  }
  return { watching: next };
};

const recovered = (watching: Watching, f: BreakerFact, rules: AlertRules): { watching: Watching; alert: Alert } => {
  const key = watchKeyOf(f.triggerId, f.action.key);
  const { [key]: w, ...rest } = watching;
  const after = w ? ` after ${w.streak} dispatch${w.streak === 1 ? '' : 'es'} that failed for good` : '';
  return {
    watching: rest,
    alert: {
      ...base(f, rules),
      type: 'action.recovered',
      occurred_at: f.recordedAt,
      summary: `${f.action.name} delivered again${after}`,
      ...(w ? { failed_dispatches: w.streak, first_failure_at: w.first, last_failure_at: w.last } : {}),
    },
  };
};

/** The alert a breaker fact raises, if any, and what is watched after it. */
export const onBreakerFact = (watching: Watching, f: BreakerFact, rules: AlertRules): { watching: Watching; alert?: Alert } =>
  f.type === 'ActionFailed' ? failed(watching, f, rules) : recovered(watching, f, rules);

/** The breaker switched a trigger off: its alert (the reason names the action and the rule). */
export const deactivatedAlert = (
  d: { position: bigint; triggerId: string; reason?: string; occurredAt: string },
  rules: AlertRules,
): Alert => ({
  id: `alrt_t${d.position}`,
  type: 'trigger.deactivated',
  occurred_at: d.occurredAt,
  summary: `the circuit breaker deactivated trigger ${d.triggerId}${d.reason ? `: ${d.reason}` : ''}`,
  trigger_id: d.triggerId,
  threshold: rules.threshold,
  ...(d.reason ? { reason: d.reason } : {}),
  link: triggerLinkOf(rules, d.triggerId),
});

/** Per destination key: whether its backlog is past the threshold now, and how many times it went past (the alerts' ids). */
export type Backlogs = Readonly<Record<string, { over: boolean; times: number }>>;

/**
 * A destination's backlog seen at one look: an alert when it goes past `threshold`, none while
 * it stays there; it is past no more once it falls below half of it (a backlog hovering at the
 * threshold raises one alert, not one per look).
 */
export const onBacklog = (
  backlogs: Backlogs,
  seen: { key: string; backlog: number; at: string },
  threshold: number,
  rules: AlertRules,
): { backlogs: Backlogs; alert?: Alert } => {
  const before = backlogs[seen.key] ?? { over: false, times: 0 };
  if (before.over)
    return seen.backlog < threshold / 2 ? { backlogs: { ...backlogs, [seen.key]: { ...before, over: false } } } : { backlogs };
  if (seen.backlog <= threshold) return { backlogs };
  const times = before.times + 1;
  return {
    backlogs: { ...backlogs, [seen.key]: { over: true, times } },
    alert: {
      id: `alrt_d${times}_${seen.key.replace(/[^A-Za-z0-9_.:-]/g, '_')}`,
      type: 'destination.backlog',
      occurred_at: seen.at,
      summary: `${seen.backlog} deliveries are waiting for the limit of ${seen.key} (more than ${threshold})`,
      destination: seen.key,
      backlog: seen.backlog,
      threshold,
      link: `${rules.adminUrl}#/limits`,
    },
  };
};

/**
 * The watched actions, at most `max` of them: those that failed last are kept (an action of a
 * trigger deleted while failing never recovers; the watch must not grow without end).
 */
export const boundWatching = (watching: Watching, max: number): Watching => {
  const keys = Object.keys(watching);
  if (keys.length <= max) return watching;
  const kept = keys.sort((a, b) => watching[b]!.last.localeCompare(watching[a]!.last)).slice(0, max);
  return Object.fromEntries(kept.map((k) => [k, watching[k]!]));
};
