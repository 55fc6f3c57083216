/** An alert as lines a person reads: the facts Slack and email both show, each in its own markup. */
import type { Alert } from '../../model/alerts/alert';

/** A digest lists this many alerts, then says how many more it holds. */
export const MAX_DIGEST_LINES = 20;

/** Text from an alert on one line: a subject or a list item cannot hold a line break. */
export const oneLine = (s: string): string => s.replace(/\s*[\r\n]+\s*/g, ' ').trim();

const failures = (a: Alert): string | undefined => {
  if (a.failed_dispatches === undefined) return undefined;
  const of = a.threshold === undefined ? '' : ` of ${a.threshold}`;
  return `${a.failed_dispatches}${of}${a.percent === undefined ? '' : ` (${a.percent}%)`}`;
};

const backlog = (a: Alert): string | undefined =>
  a.backlog === undefined ? undefined : `${a.backlog} waiting${a.threshold === undefined ? '' : ` (threshold ${a.threshold})`}`;

/** `Label: value`, for each fact the alert holds, in the order a person asks them: what, how bad, since when, why. */
export const factLines = (a: Alert): string[] => {
  const facts: Array<[string, string | undefined]> = [
    ['Trigger', a.trigger_id],
    ['Action', a.action?.name],
    ['Destination', a.destination],
    ['Failed dispatches', failures(a)],
    ['Backlog', a.failed_dispatches === undefined ? backlog(a) : undefined],
    ['First failure', a.first_failure_at],
    ['Last failure', a.last_failure_at],
    ['Reason', a.reason],
    ['Occurred', a.occurred_at],
  ];
  return facts.flatMap(([label, value]) => (value === undefined ? [] : [`${label}: ${oneLine(value)}`]));
};

/** The alerts a digest lists, and how many it leaves out. */
export const digestItems = (alerts: readonly Alert[]): { shown: readonly Alert[]; more: number } => ({
  shown: alerts.slice(0, MAX_DIGEST_LINES),
  more: Math.max(0, alerts.length - MAX_DIGEST_LINES),
});

export const andMore = (n: number): string => `and ${n} more`;

/** Whether a link can be followed as it is (absolute), or is a path of the admin (no `alerts.admin_url`). */
export const isAbsoluteLink = (link: string): boolean => /^https?:\/\//i.test(link);
