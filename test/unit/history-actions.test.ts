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

test("one that waited in an order workflow: a turn received, the attempt and `done` sent by local activities in the same task, 7 (and the order workflow's share)", () => {
  expect(countActions(recorded('before-turns-in-store/a-dispatch-that-waited-for-its-turn-in-its-instance-order.json'))).toMatchObject({
    workflowStarted: 1,
    workflowTasks: 2,
    localActivities: 2,
    signals: 1,
    completion: 1,
    total: 7,
  });
});

test('the same when the dispatch signalled `done` as a workflow: a third task only to confirm it, 7', () => {
  expect(
    countActions(recorded('before-order-signals-by-local-activity/a-dispatch-that-waited-for-its-turn-in-its-instance-order.json')),
  ).toMatchObject({
    workflowStarted: 1,
    workflowTasks: 3,
    localActivities: 1,
    signals: 1,
    completion: 1,
    total: 7,
  });
});

test('one webhook delivered at once, every attempt a regular activity, said by the input: 5', () => {
  expect(countActions(recorded(`before-ordering/${ONE_WEBHOOK}`))).toEqual({
    workflowStarted: 1,
    workflowTasks: 2,
    activities: 1,
    localActivities: 0,
    markers: 0,
    timers: 0,
    searchAttributeUpserts: 0,
    signals: 0,
    completion: 1,
    total: 5,
  });
});

test('the same behind patched(): its marker and the upsert of TemporalChangeVersion make 7', () => {
  expect(countActions(recorded(`before-attempts-as-input/${ONE_WEBHOOK}`))).toEqual({
    workflowStarted: 1,
    workflowTasks: 2,
    activities: 1,
    localActivities: 0,
    markers: 1,
    timers: 0,
    searchAttributeUpserts: 1,
    signals: 0,
    completion: 1,
    total: 7,
  });
});

test('one webhook delivered at once by a local first attempt (before send-once): 4', () => {
  expect(countActions(recorded(`before-no-local-attempts/${ONE_WEBHOOK}`))).toEqual({
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

test('retries count as activity attempts: 500, 500, then 200 is three; a local first attempt and its timer before them', () => {
  expect(
    countActions(recorded('before-ordering/500-500-then-200-delivered-on-the-third-attempt-and-the-status-says-3-attempts.json'))
      .activities,
  ).toBe(3);
  const local = countActions(
    recorded('before-no-local-attempts/500-500-then-200-delivered-on-the-third-attempt-and-the-status-says-3-attempts.json'),
  );
  expect(local).toMatchObject({ workflowTasks: 3, activities: 2, localActivities: 1, timers: 1, total: 9 });
});

test('the matching local activity, its search-attribute upsert and the patch marker of a dispatch planned by the worker', () => {
  expect(countActions(recorded(`before-api-plan/${ONE_WEBHOOK}`))).toEqual({
    workflowStarted: 1,
    workflowTasks: 1,
    activities: 0,
    localActivities: 2,
    markers: 1,
    timers: 0,
    searchAttributeUpserts: 2,
    signals: 0,
    completion: 1,
    total: 8,
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

test('an activity still waiting for its first attempt counts once; the mean of several executions is per execution', () => {
  expect(countActions(fromJson([['ACTIVITY_TASK_SCHEDULED']])).activities).toBe(1);
  expect(
    meanActions([
      countActions(recorded(`before-ordering/${ONE_WEBHOOK}`)),
      countActions(recorded(`before-no-local-attempts/${ONE_WEBHOOK}`)),
    ]),
  ).toMatchObject({ workflowTasks: 1.5, total: 4.5 });
  expect(meanActions([]).total).toBe(0);
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
