import { Checkpoint, EventStore, StoredEvent } from '../event-store/port';
import type { Logger } from '../kernel/logger';
import { Alert, AlertMessage, Sink, SinkError } from '../model/alerts/alert';
import { ALERT_RAISED, alertStreamOf } from './raise';

/** Alerts in one digest at most; the rest go in the next message. */
const DIGEST_MAX = 50;
/** Events of the `alert` category read per look. */
const READ_MAX = 200;
/** A send that has not answered by then is a retryable failure. */
const SEND_TIMEOUT_MS = 15_000;
/** The retries' schedule: doubling from 1 s up to 30 s between tries, given up after an hour; a Retry-After is taken up to 5 min. */
const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 30_000;
const RETRY_AFTER_MAX_MS = 5 * 60_000;
export const GIVE_UP_AFTER_MS = 60 * 60_000;

export const ALERT_SENT = 'AlertSent';
export const ALERT_NOT_SENT = 'AlertNotSent';

/** A message on its way to a sink: kept as it is across retries (a digest keeps its id), until taken or given up. */
interface InFlight {
  message: AlertMessage;
  alerts: Alert[];
  /** Where the sink's cursor goes once this message is done with. */
  through: bigint;
  tries: number;
  since: number;
}

export interface SinkOutcomes {
  sent(sink: string, alerts: number): void;
  retried(sink: string): void;
  givenUp(sink: string, alerts: number): void;
}

/** The alerts waiting for a sink after its cursor, the ones it wants, DIGEST_MAX at most; and how far the look went. */
const pendingFor = async (store: EventStore, sink: Sink, cursor: Checkpoint) => {
  const events: StoredEvent[] = await store.readCategory('alert', cursor, READ_MAX);
  const alerts: Alert[] = [];
  let through: bigint | undefined;
  for (const e of events) {
    const alert = e.type === ALERT_RAISED ? (e.data as { alert?: Alert }).alert : undefined;
    if (alert && sink.events.has(alert.type)) {
      if (alerts.length === DIGEST_MAX) break;
      alerts.push(alert);
    }
    through = e.position;
  }
  return { alerts, through };
};

const messageOf = (alerts: Alert[]): AlertMessage =>
  alerts.length === 1
    ? { kind: 'alert', alert: alerts[0]! }
    : {
        kind: 'digest',
        id: `dgst_${alerts[0]!.id}_${alerts.length}`,
        occurred_at: alerts[alerts.length - 1]!.occurred_at,
        alerts,
        summary: `${alerts.length} alerts: ${alerts[0]!.summary}`,
      };

/** Each alert's stream records what became of it at the sink (the admin shows it). */
const noteOutcome = (store: EventStore, alerts: readonly Alert[], type: string, data: Record<string, unknown>) =>
  Promise.all(alerts.map((a) => store.append(alertStreamOf(a.id), [{ type, data, metadata: {} }], 'any')));

/**
 * One sink's deliveries, a step at a time: what waits after its cursor goes as one message (a
 * digest when several wait: many actions changed at once, or the sink was away or at its rate),
 * at most `maxPerMinute` a minute. A failed send is tried again on its own schedule and given
 * up after an hour (recorded, logged and counted; never an alert about alerts).
 */
export const sinkSender = (store: EventStore, sink: Sink, log: Logger, outcomes: SinkOutcomes, cursor: Checkpoint) => {
  let inFlight: InFlight | undefined;
  let nextAt = 0;
  let position = cursor;

  const done = async (f: InFlight, type: string, data: Record<string, unknown>) => {
    await noteOutcome(store, f.alerts, type, { sink: sink.name, at: new Date().toISOString(), ...data });
    position = f.through;
    inFlight = undefined;
  };

  /** Sends what is due; resolves when it has nothing more to do now. `stopping` aborts a send under way. */
  const step = async (stopping: AbortSignal): Promise<void> => {
    const now = Date.now();
    if (now < nextAt) return;
    if (!inFlight) {
      const { alerts, through } = await pendingFor(store, sink, position);
      if (through === undefined) return;
      if (alerts.length === 0) return void (position = through);
      inFlight = { message: messageOf(alerts), alerts, through, tries: 0, since: now };
    }
    const f = inFlight;
    f.tries++;
    try {
      await sink.send(f.message, AbortSignal.any([stopping, AbortSignal.timeout(SEND_TIMEOUT_MS)]));
      outcomes.sent(sink.name, f.alerts.length);
      await done(f, ALERT_SENT, f.message.kind === 'digest' ? { digest: f.message.id } : {});
      nextAt = Date.now() + 60_000 / sink.maxPerMinute;
    } catch (e) {
      if (stopping.aborted) return;
      const error = e instanceof Error ? e.message : String(e);
      const retryable = !(e instanceof SinkError) || e.retryable;
      if (retryable && Date.now() - f.since < GIVE_UP_AFTER_MS) {
        outcomes.retried(sink.name);
        const backoff = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** (f.tries - 1));
        const asked = e instanceof SinkError && e.retryAfterMs !== undefined ? Math.min(RETRY_AFTER_MAX_MS, e.retryAfterMs) : 0;
        nextAt = Date.now() + Math.max(backoff, asked);
        if (f.tries === 1 || f.tries % 10 === 0)
          log.warn('alerts: a sink did not take a message; trying again', { sink: sink.name, tries: f.tries, error });
        return;
      }
      outcomes.givenUp(sink.name, f.alerts.length);
      log.error('alerts: a sink never took a message; given up', { sink: sink.name, tries: f.tries, alerts: f.alerts.length, error });
      await done(f, ALERT_NOT_SENT, { error: error.slice(0, 300), tries: f.tries });
    }
  };

  return {
    step,
    /** The cursor to save: the last alert event this sink is done with. */
    cursor: () => position,
    /** When the next step has something to do at the earliest (ms since the epoch). */
    dueAt: () => nextAt,
  };
};

export type SinkSender = ReturnType<typeof sinkSender>;
