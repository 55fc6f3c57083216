import { randomUUID } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import { retrySettingsOf } from '../../../src/config';
import { planDispatch } from '../../../src/model/signals/matching';
import type { DispatchInput, SignalEnvelope } from '../../../src/dispatch/types';
import { orderWorkflowIdOf } from '../../../src/model/signals/instance-key';
import { enqueueSignal, InstanceOrderInput, OrderSignalsBy } from '../../../src/dispatch/ordering';
import { startDispatchHarness } from '../../support/dispatch-harness';
import { RecordedRun, saveHistoriesIfAsked } from '../../support/histories';
import { Receiver, startReceiver } from '../../support/receiver';
import { postTrigger, triggerBody } from '../../support/trigger-body';

/**
 * Dispatches started before turns were kept in our store wait in an order workflow, which the
 * worker still runs for them (they may be waiting when the service is upgraded). The order of one
 * instance's dispatches outlives that workflow's runs: a run continues as new after a number of
 * history events, carrying the queue and the dispatches it handled. Started here with a low
 * limit (the service's runs used 4,000), so a few dozen dispatches cross several runs. The
 * dispatches are started as clients started them then, and enqueued as the relay did.
 * Real Temporal dev server, worker in this process, real receiver.
 */
let h: Awaited<ReturnType<typeof startDispatchHarness>>;
let rx: Receiver;
const recorded: RecordedRun[] = [];
/** The `n` of each request the receiver answered 200, in order. */
const delivered: number[] = [];

beforeAll(async () => {
  rx = await startReceiver();
  // Every third first attempt fails, so turns also wait for retries.
  let requests = 0;
  rx.respond((r) => {
    if (r.path !== '/runs') return undefined;
    if (requests++ % 3 === 1) return { status: 500 };
    delivered.push((JSON.parse(r.body) as { n: number }).n);
    return { status: 200 };
  });
  h = await startDispatchHarness({});
}, 60_000);

afterAll(async () => {
  try {
    saveHistoriesIfAsked(recorded);
  } finally {
    await h?.close();
    await rx?.close();
  }
});

type Event = temporal.api.history.v1.IHistoryEvent;
const { EventType } = temporal.api.enums.v1;

/** Every run of a workflow from its first, following each continue-as-new. */
const runsOf = async (workflowId: string, firstRunId: string) => {
  const runs: Array<{ runId: string; events: Event[] }> = [];
  for (let runId: string | undefined = firstRunId; runId;) {
    const events: Event[] = (await h.client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
    runs.push({ runId, events });
    runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return runs;
};

/** The dispatches a run gave a turn to as workflows signal, in order. */
const turnsIn = (events: Event[]) =>
  events
    .filter((e) => e.eventType === EventType.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED)
    .map((e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes!.workflowExecution!.workflowId!);

/** The text of every `enqueue` signal's input in a run's events. */
const enqueuedIn = (events: Event[]) =>
  events
    .filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'enqueue')
    .flatMap((e) => e.workflowExecutionSignaledEventAttributes!.input?.payloads ?? [])
    .map((p) => Buffer.from(p.data ?? []).toString('utf8'))
    .join('\n');

/** A dispatch as clients started it before turns were kept in the store: the order's workflow gives its turn. */
const startEarlierDispatch = async (model: string, key: string, n: number, signalsBy: OrderSignalsBy | undefined) => {
  const signal: SignalEnvelope = {
    id: randomUUID(),
    signal: 'post_save',
    app_label: 'ord',
    model_name: model,
    instance: { id: key, n },
    occurred_at: new Date().toISOString(),
  };
  const input: DispatchInput = {
    signal,
    retry: retrySettingsOf(h.config),
    plan: planDispatch(h.readModel, 10, signal),
    attemptsAs: 'local-first',
    marksFailed: true,
    ...(signalsBy ? { orderSignalsBy: signalsBy } : {}),
  };
  const workflowId = `signal-${signal.id}`;
  await h.client.workflow.start('dispatchSignal', { taskQueue: h.taskQueue, workflowId, args: [input] });
  return workflowId;
};

const millisOf = (e: Event) => Number(e.eventTime!.seconds) * 1000 + Math.floor((e.eventTime!.nanos ?? 0) / 1e6);

/**
 * The dispatches that heard a turn, in the order they heard it (turns sent by a local activity
 * leave no event of their own in the order's history); a dispatch that heard two is there twice.
 */
const turnsHeard = async (dispatchIds: string[]) =>
  (
    await Promise.all(
      dispatchIds.map(async (id) => {
        const events: Event[] = (await h.client.workflow.getHandle(id).fetchHistory()).events ?? [];
        return events
          .filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'turn')
          .map((e) => ({ id, at: millisOf(e) }));
      }),
    )
  )
    .flat()
    .sort((a, b) => a.at - b.at)
    .map((t) => t.id);

test.each([
  ['as workflows signal (runs started before local-activity signals)', undefined, ''],
  ['through local activities', 'local-activity' as const, 'by local activity: '],
])(
  'an instance order continues as new across runs, turns given %s: turns keep acceptance order, and a dispatch handled in an earlier run and enqueued again gets no second turn',
  async (_, signalsBy, recordedAs) => {
    // `recordedAs`: the start of its histories' names (the older case keeps the names it had).
    delivered.length = 0;
    // Each case its own model: the other case's trigger matches none of its signals.
    const [model, key] = recordedAs ? ['runs-la', 'La'] : ['runs', 'L'];
    const trigger = await postTrigger(
      h.app,
      triggerBody({
        app: 'ord',
        model,
        webhooks: [{ url: rx.url('/runs'), http_method: 'POST' }],
        payload: { n: '{{ instance.n }}' },
        ordering: 'per_instance',
      }),
    );
    const orderId = orderWorkflowIdOf(trigger.id, key);
    const input: InstanceOrderInput = {
      triggerId: trigger.id,
      instanceKey: key,
      queue: [],
      remembered: [],
      eventsPerRun: 40,
      ...(signalsBy ? { signalsBy } : {}),
    };
    const order = await h.client.workflow.start('instanceOrder', { taskQueue: h.taskQueue, workflowId: orderId, args: [input] });

    // 30 dispatches for one instance, enqueued 5 at a time into the running order, as the relay did.
    const dispatchIds: string[] = [];
    for (let i = 0; i < 30; i += 5) {
      const batch = await Promise.all(Array.from({ length: 5 }, (_, j) => startEarlierDispatch(model, key, i + j, signalsBy)));
      await h.client.workflow.getHandle(orderId).signal(enqueueSignal, batch);
      dispatchIds.push(...batch);
    }
    await rx.waitFor(() => delivered.length >= 30, 120_000);
    expect(delivered).toEqual(Array.from({ length: 30 }, (_, n) => n));

    const runs = await runsOf(orderId, order.firstExecutionRunId);
    expect(runs.length).toBeGreaterThanOrEqual(3);
    for (const run of runs.slice(0, -1)) expect(run.events.length).toBeLessThan(40 + 30);
    // The turns given, to `ids` (as workflows signal: every turn in the order's runs).
    const given = async (ids: string[]) =>
      signalsBy ? turnsHeard(ids) : (await runsOf(orderId, order.firstExecutionRunId)).flatMap((run) => turnsIn(run.events));
    expect(await given(dispatchIds)).toEqual(dispatchIds);

    // A relay taking over enqueued again what it could not know was handled: ids from the first run, then a new dispatch.
    const current = h.client.workflow.getHandle(orderId);
    await current.signal(enqueueSignal, dispatchIds.slice(0, 3));
    const last = await startEarlierDispatch(model, key, 30, signalsBy);
    await current.signal(enqueueSignal, [last]);
    await rx.waitFor(() => delivered.length >= 31, 30_000);
    expect(delivered.slice(30)).toEqual([30]);
    expect(await given([...dispatchIds, last])).toEqual([...dispatchIds, last]);

    const after = await runsOf(orderId, order.firstExecutionRunId);
    recorded.push(
      { name: `${recordedAs}an instance order that continued as new`, workflowId: orderId, runId: order.firstExecutionRunId },
      {
        name: `${recordedAs}an instance order after continuing as new that ignored a dispatch enqueued again`,
        workflowId: orderId,
        runId: after.find((run) => enqueuedIn(run.events).includes(last))!.runId,
      },
    );
  },
  180_000,
);
