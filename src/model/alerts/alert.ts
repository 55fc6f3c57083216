/**
 * The operational events the service pushes to the people who run it: what each one says, as
 * every sink and the API's feed show it. Stable types; the body never holds a secret (an action
 * is named by scheme, host and path, as the breaker's reason names it).
 */
export const ALERT_TYPES = [
  'action.failing',
  'action.exhausted',
  'action.recovered',
  'trigger.deactivated',
  'destination.backlog',
] as const;
export type AlertType = (typeof ALERT_TYPES)[number];

/** The action an alert is about: `w0` / `q1` as in delivery ids, and its shown name (`webhook 0 (https://host/path)`). */
export interface AlertAction {
  key: string;
  kind: 'webhook' | 'broker';
  name: string;
}

export interface Alert {
  /** Stable: the same alert recorded again (a restart) keeps it; a webhook sink sends it as `webhook-id`. */
  id: string;
  type: AlertType;
  /** When the change it reports happened (ISO 8601). */
  occurred_at: string;
  /** One line a person reads first (the subject of an email, the first line of a Slack message). */
  summary: string;
  trigger_id?: string;
  action?: AlertAction;
  /** `destination.backlog`: the limit's name, `webhook:<name>` or `broker:<name>`. */
  destination?: string;
  /** Dispatches of the action that failed every attempt in the current run. */
  failed_dispatches?: number;
  /**
   * The breaker's `consecutive_failures` (action alerts, trigger.deactivated), or the config's
   * `alerts.backlog_threshold` (destination.backlog); and the percent of it reached (`action.failing`).
   */
  threshold?: number;
  percent?: number;
  /** `destination.backlog`: deliveries waiting, and the threshold it passed. */
  backlog?: number;
  first_failure_at?: string;
  last_failure_at?: string;
  /** `trigger.deactivated`: the breaker's reason, as the trigger's history records it. */
  reason?: string;
  /** The admin page of the trigger (or the limits page), absolute when the config gives `alerts.admin_url`. */
  link: string;
}

/**
 * What one sink is sent at once: an alert, or a digest of several that were waiting together
 * (many actions changed at once, or the sink was away or at its rate limit).
 */
export type AlertMessage =
  { kind: 'alert'; alert: Alert } | { kind: 'digest'; id: string; occurred_at: string; alerts: Alert[]; summary: string };

/** A send that failed: `retryable` false means the same message will never be taken (a 4xx other than 408/429). */
export class SinkError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    /** The sink asked to wait this long (Retry-After), in ms. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'SinkError';
  }
}

/** One configured place alerts go to. `send` resolves once the sink took the message; it rejects with a SinkError. */
export interface Sink {
  readonly name: string;
  readonly type: 'webhook' | 'slack' | 'email';
  /** The alert types it wants. */
  readonly events: ReadonlySet<AlertType>;
  /** Messages per minute at most (several waiting go as one digest). */
  readonly maxPerMinute: number;
  send(message: AlertMessage, signal: AbortSignal): Promise<void>;
  close?(): Promise<void>;
}
