import { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const E = temporal.api.enums.v1.EventType;

/**
 * What one workflow execution cost the Temporal server, per kind, counted from its history.
 * Temporal Cloud bills the start, activity attempts, local activities, timers, markers and
 * search-attribute upserts as actions; workflow tasks and the completion are not billed, but
 * each is a round trip and a history write, and they are what bounds a server's throughput.
 */
export interface ActionCounts {
  workflowStarted: number;
  /** Every workflow task the server handed out, failed and timed-out attempts included. */
  workflowTasks: number;
  /** Activity attempts: each scheduled activity counts once per attempt it took. */
  activities: number;
  /** Local-activity markers (one per local activity that completed). */
  localActivities: number;
  /** Other markers: patches (`patched()`), side effects, versions. */
  markers: number;
  timers: number;
  searchAttributeUpserts: number;
  /** Signals received (from a client, signal-with-start included, or from another workflow): each one sent is billed once. */
  signals: number;
  /** The closing event: completed, failed, timed out, cancelled, terminated or continued as new. */
  completion: number;
  total: number;
}

export const ACTION_KINDS = [
  'workflowStarted',
  'workflowTasks',
  'activities',
  'localActivities',
  'markers',
  'timers',
  'searchAttributeUpserts',
  'signals',
  'completion',
  'total',
] as const satisfies ReadonlyArray<keyof ActionCounts>;

const LOCAL_ACTIVITY_MARKERS = new Set(['core_local_activity', 'LocalActivity']);
const CLOSING = new Set<number>([
  E.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
  E.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
  E.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT,
  E.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED,
  E.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED,
  E.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW,
]);

const zero = (): ActionCounts => ({
  workflowStarted: 0,
  workflowTasks: 0,
  activities: 0,
  localActivities: 0,
  markers: 0,
  timers: 0,
  searchAttributeUpserts: 0,
  signals: 0,
  completion: 0,
  total: 0,
});

/**
 * Counts per kind from a history's events, as `fetchHistory()` or `historyFromJSON` give them.
 *
 * Retries leave no event of their own: an activity's retries show in the `attempt` of its
 * started event (written for the last attempt only), a workflow task's in the `attempt` of the
 * task scheduled after the first failure (attempts 2…n in one event).
 */
export const countActions = (events: readonly HistoryEvent[]): ActionCounts => {
  const c = zero();
  const attemptsOf = new Map<string, number>();
  for (const e of events) {
    switch (e.eventType) {
      case E.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
        c.workflowStarted++;
        break;
      case E.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED: {
        const attempt = e.workflowTaskScheduledEventAttributes?.attempt ?? 1;
        c.workflowTasks += attempt > 1 ? attempt - 1 : 1;
        break;
      }
      case E.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
        attemptsOf.set(String(e.eventId), 1);
        break;
      case E.EVENT_TYPE_ACTIVITY_TASK_STARTED: {
        const a = e.activityTaskStartedEventAttributes;
        attemptsOf.set(String(a?.scheduledEventId), Math.max(1, a?.attempt ?? 1));
        break;
      }
      case E.EVENT_TYPE_MARKER_RECORDED:
        if (LOCAL_ACTIVITY_MARKERS.has(e.markerRecordedEventAttributes?.markerName ?? '')) c.localActivities++;
        else c.markers++;
        break;
      case E.EVENT_TYPE_TIMER_STARTED:
        c.timers++;
        break;
      case E.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES:
        c.searchAttributeUpserts++;
        break;
      case E.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
        c.signals++;
        break;
      default:
        if (CLOSING.has(e.eventType ?? 0)) c.completion++;
    }
  }
  for (const n of attemptsOf.values()) c.activities += n;
  c.total =
    c.workflowStarted +
    c.workflowTasks +
    c.activities +
    c.localActivities +
    c.markers +
    c.timers +
    c.searchAttributeUpserts +
    c.signals +
    c.completion;
  return c;
};

/** The mean per execution of several executions' counts (e.g. per delivery, one delivery each). */
export const meanActions = (counts: readonly ActionCounts[]): ActionCounts => {
  const m = zero();
  if (counts.length === 0) return m;
  for (const k of ACTION_KINDS) m[k] = counts.reduce((s, c) => s + c[k], 0) / counts.length;
  return m;
};
