import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { ActionCounts, countActions, meanActions } from '../src/temporal/history-actions';

/**
 * What a dispatch costs Temporal, measured three ways: actions counted from histories, the
 * server's own counters (eager dispatch), and CPU time of the server and the service processes.
 */

const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** CPU seconds (user + system) a process has used so far, from /proc. */
export const cpuSeconds = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields from the third (state) on
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
};

/** The sum of a Prometheus counter over its label sets in namespace `default`. */
export const serverCounter = async (metricsUrl: string, name: string): Promise<number> => {
  const text = await (await fetch(metricsUrl)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) && l.includes('namespace="default"'))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
};

/** Mean actions per execution of these workflows' histories, and how many started eagerly. */
export const actionsOfWorkflows = async (
  address: string,
  workflowIds: string[],
): Promise<{ mean: ActionCounts; eagerStarts: number; histories: number }> => {
  const connection = await Connection.connect({ address });
  try {
    const client = new Client({ connection });
    const histories = await Promise.all(workflowIds.map((id) => client.workflow.getHandle(id).fetchHistory()));
    const events = histories.map((h) => h.events ?? []);
    const eagerStarts = events.filter((e) => e[0]?.workflowExecutionStartedEventAttributes?.eagerExecutionAccepted).length;
    return { mean: meanActions(events.map(countActions)), eagerStarts, histories: histories.length };
  } finally {
    await connection.close();
  }
};

/** Counts of a recorded history (the CLI's JSON, as test/fixtures/histories holds them). */
export const actionsOfRecorded = (path: string): ActionCounts =>
  countActions(historyFromJSON(JSON.parse(readFileSync(path, 'utf8'))).events ?? []);

export const FIXTURES = join(__dirname, '..', 'test', 'fixtures', 'histories');

const LABELS: Array<[keyof ActionCounts, string]> = [
  ['workflowStarted', 'workflow started'],
  ['workflowTasks', 'workflow tasks'],
  ['activities', 'activity attempts'],
  ['localActivities', 'local activities'],
  ['markers', 'markers (patches, side effects)'],
  ['timers', 'timers'],
  ['searchAttributeUpserts', 'search-attribute upserts'],
  ['signals', 'signals received'],
  ['completion', 'completion'],
  ['total', '**total**'],
];

/** Markdown rows, one per kind: label | each column's value. */
export const actionRows = (columns: ActionCounts[]): string[] =>
  LABELS.map(([k, label]) => `| ${label} | ${columns.map((c) => Number(c[k].toFixed(2))).join(' | ')} |`);

/** The event type names of a history, for a line that shows its shape. */
export const shapeOf = (events: temporal.api.history.v1.IHistoryEvent[]) =>
  events.map((e) => temporal.api.enums.v1.EventType[e.eventType ?? 0]?.replace('EVENT_TYPE_', '')).join(' ');
