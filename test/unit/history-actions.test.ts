import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { countActions, meanActions } from '../../src/temporal/history-actions';

const FIXTURES = join(__dirname, '..', 'fixtures', 'histories');
const recorded = (path: string) => historyFromJSON(JSON.parse(readFileSync(join(FIXTURES, path), 'utf8'))).events ?? [];
/** Events as the CLI writes them (`temporal workflow show --output json`): `[type, attributes]`, ids in order. */
const fromJson = (events: Array<[string, Record<string, unknown>?]>) =>
  historyFromJSON({
    events: events.map(([type, attributes], i) => ({
      eventId: String(i + 1),
      eventType: `EVENT_TYPE_${type}`,
      [`${type.toLowerCase().replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())}EventAttributes`]: attributes ?? {},
    })),
  }).events ?? [];
const ONE_WEBHOOK = 'the-same-signal-id-emitted-three-times-starts-one-dispatch.json';

test('one webhook delivered at once by a local first attempt, the delivered ledger first (today): 4', () => {
  expect(countActions(recorded(ONE_WEBHOOK))).toEqual({
    workflowStarted: 1,
    workflowTasks: 1,
    activities: 0,
    localActivities: 1,
    markers: 0,
    timers: 0,
    searchAttributeUpserts: 0,
    signals: 0,
    completion: 1,
    total: 4,
  });
});

test('a dispatch that waited for its turn kept in our store: a turn received, the attempt (which also ended the turn) by a local activity, its check timer, 7', () => {
  expect(countActions(recorded('a-dispatch-that-waited-for-its-turn-in-its-instance-order.json'))).toMatchObject({
    workflowStarted: 1,
    workflowTasks: 2,
    localActivities: 1,
    signals: 1,
    timers: 1,
    completion: 1,
    total: 7,
  });
});

test('workflow task attempts after a failure count, though history keeps one event for attempts 2…n', () => {
  const events = fromJson([
    ['WORKFLOW_EXECUTION_STARTED'],
    ['WORKFLOW_TASK_SCHEDULED', { attempt: 1 }],
    ['WORKFLOW_TASK_STARTED'],
    ['WORKFLOW_TASK_FAILED'],
    ['WORKFLOW_TASK_SCHEDULED', { attempt: 4 }],
    ['WORKFLOW_TASK_STARTED'],
    ['WORKFLOW_TASK_COMPLETED'],
    ['WORKFLOW_EXECUTION_FAILED'],
  ]);
  expect(countActions(events)).toMatchObject({ workflowTasks: 4, completion: 1, total: 6 });
});

test('each signal received counts once (a turn, a done, an enqueue by signal-with-start)', () => {
  const events = fromJson([
    ['WORKFLOW_EXECUTION_STARTED'],
    ['WORKFLOW_EXECUTION_SIGNALED'],
    ['WORKFLOW_TASK_SCHEDULED', { attempt: 1 }],
    ['WORKFLOW_TASK_STARTED'],
    ['WORKFLOW_TASK_COMPLETED'],
    ['WORKFLOW_EXECUTION_SIGNALED'],
    ['WORKFLOW_EXECUTION_COMPLETED'],
  ]);
  expect(countActions(events)).toMatchObject({ signals: 2, workflowTasks: 1, total: 5 });
});

test('retries count as activity attempts: 500, 500, then 200 is a local first attempt, its timer, and two activity attempts', () => {
  expect(countActions(recorded('500-500-then-200-delivered-on-the-third-attempt-and-the-status-says-3-attempts.json'))).toMatchObject({
    localActivities: 1,
    timers: 1,
    activities: 2,
  });
});

test('markers and search-attribute upserts each count once', () => {
  expect(
    countActions(
      fromJson([
        ['WORKFLOW_EXECUTION_STARTED'],
        ['WORKFLOW_TASK_SCHEDULED', { attempt: 1 }],
        ['WORKFLOW_TASK_STARTED'],
        ['WORKFLOW_TASK_COMPLETED'],
        ['MARKER_RECORDED', { markerName: 'core_patch' }],
        ['UPSERT_WORKFLOW_SEARCH_ATTRIBUTES'],
        ['WORKFLOW_EXECUTION_COMPLETED'],
      ]),
    ),
  ).toMatchObject({ markers: 1, searchAttributeUpserts: 1, total: 5 });
});

test('an activity still waiting for its first attempt counts once; the mean of several executions is per execution', () => {
  expect(countActions(fromJson([['ACTIVITY_TASK_SCHEDULED']])).activities).toBe(1);
  const one = countActions(recorded(ONE_WEBHOOK));
  const waited = countActions(recorded('a-dispatch-that-waited-for-its-turn-in-its-instance-order.json'));
  expect(meanActions([one, waited]).total).toBe((one.total + waited.total) / 2);
  expect(meanActions([]).total).toBe(0);
});
