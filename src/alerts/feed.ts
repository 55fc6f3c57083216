import type { EventStore, StoredEvent } from '../event-store/port';
import type { FeedSource } from '../audit/feed';
import type { Alert } from '../model/alerts/alert';
import { ALERT_RAISED } from './raise';
import { ALERT_NOT_SENT, ALERT_SENT } from './send';

/** The alerts feed (`GET /api/alerts`, its stream): each alert with its position; what sinks made of it is not in it. */
export const ALERTS: FeedSource = {
  category: 'alert',
  items: 'alerts',
  title: 'feed of alerts',
  entry: (e) => {
    const alert = e.type === ALERT_RAISED ? (e.data as { alert?: Alert }).alert : undefined;
    return alert && { type: alert.type, body: { position: e.position.toString(), ...alert } };
  },
};

export interface Outcome {
  sink: string;
  outcome: 'sent' | 'not_sent';
  at: string;
  digest?: string;
  error?: string;
}

const outcomeOf = (e: StoredEvent): Outcome | undefined => {
  const d = e.data as { sink?: unknown; at?: unknown; digest?: unknown; error?: unknown };
  if ((e.type !== ALERT_SENT && e.type !== ALERT_NOT_SENT) || typeof d.sink !== 'string') return undefined;
  return {
    sink: d.sink,
    outcome: e.type === ALERT_SENT ? 'sent' : 'not_sent',
    at: String(d.at),
    ...(typeof d.digest === 'string' ? { digest: d.digest } : {}),
    ...(typeof d.error === 'string' ? { error: d.error } : {}),
  };
};

/** Events of the `alert` category read at a time by the sweep below. */
const SWEEP_CHUNK = 500;

/**
 * The last `limit` alerts, newest first, each with what every sink made of it so far: one sweep
 * of the `alert` category (kept for the retention window, and small: an alert is a change of
 * state, never one per failure).
 */
export const recentAlerts = async (store: EventStore, limit: number) => {
  const alerts = new Map<string, Alert & { position: string; outcomes: Outcome[] }>();
  const lastBySink = new Map<string, Outcome>();
  for (let after: bigint | 'start' = 'start'; ;) {
    const events = await store.readCategory('alert', after, SWEEP_CHUNK);
    for (const e of events) {
      const id = e.streamId.slice('alert-'.length);
      const entry = ALERTS.entry(e);
      if (entry) {
        alerts.set(id, { ...(entry.body as unknown as Alert & { position: string }), outcomes: [] });
        if (alerts.size > limit) alerts.delete(alerts.keys().next().value!);
      }
      const outcome = outcomeOf(e);
      if (outcome) {
        alerts.get(id)?.outcomes.push(outcome);
        lastBySink.set(outcome.sink, outcome);
      }
    }
    if (events.length < SWEEP_CHUNK) break;
    after = events[events.length - 1]!.position;
  }
  return { alerts: [...alerts.values()].reverse(), lastBySink };
};
