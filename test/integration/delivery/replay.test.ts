import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { historyText, loadHistories } from '../../support/histories';
import { testServers } from '../../support/servers';

/**
 * Workflow changes must stay deterministic for dispatches already running: every recorded
 * history in test/fixtures/histories (made with
 * `RECORD_HISTORIES=1 npx jest test/integration/delivery/dispatch.test.ts
 * test/integration/delivery/ordering-runs.test.ts test/integration/signals/cancel-deliveries.test.ts`:
 * dispatches, dispatches that took a cancel, and the order of a trigger's
 * dispatches per instance of older dispatches, including runs that continued as new) replays against today's
 * workflow code (bundled by the global setup) without a non-determinism error.
 */
const histories = loadHistories();
try {
  Runtime.install({ logger: new DefaultLogger('WARN') });
} catch {
  /* installed already */
}

const workflowTypeOf = (history: unknown) =>
  (history as { events: Array<{ workflowExecutionStartedEventAttributes?: { workflowType?: { name?: string } } }> }).events[0]
    ?.workflowExecutionStartedEventAttributes?.workflowType?.name;
const signalsIn = (history: unknown): string[] => JSON.stringify(history).match(/"signalName":"[a-z]+"/g) ?? [];

test('recorded histories cover the dispatch scenarios, an order per instance (also one continued as new, and one continued from another), a dispatch that waited for its turn, given by an order workflow (signals sent by local activities and as workflows signal) and by the dispatch before it, and dispatches that took a cancel', () => {
  expect(histories.length).toBeGreaterThanOrEqual(5);
  const orders = histories.filter((h) => workflowTypeOf(h.history) === 'instanceOrder');
  expect(orders.length).toBeGreaterThanOrEqual(1);
  expect(new Set(orders.flatMap((h) => signalsIn(h.history)))).toEqual(
    new Set(['"signalName":"enqueue"', '"signalName":"turn"', '"signalName":"done"']),
  );
  expect(
    histories.some((h) => workflowTypeOf(h.history) === 'dispatchSignal' && signalsIn(h.history).includes('"signalName":"turn"')),
  ).toBe(true);
  expect(orders.some((h) => JSON.stringify(h.history).includes('EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW'))).toBe(true);
  expect(orders.some((h) => JSON.stringify(h.history).includes('"continuedExecutionRunId"'))).toBe(true);
  // Orders and dispatches whose signals a local activity sends, and older ones whose workflows signal each other.
  const byLocalActivity = (h: { history: unknown }) => /"(orderS|s)ignalsBy":"local-activity"/.test(historyText(h.history));
  const waited = histories.filter(
    (h) => workflowTypeOf(h.history) === 'dispatchSignal' && signalsIn(h.history).includes('"signalName":"turn"'),
  );
  expect(new Set(orders.map(byLocalActivity))).toEqual(new Set([true, false]));
  expect(new Set(waited.map(byLocalActivity))).toEqual(new Set([true, false]));
  // And one whose turns were kept in our store: told by the dispatch before it, not by an order's workflow.
  expect(waited.some((h) => /"turns":\{"position"/.test(historyText(h.history)))).toBe(true);
  // And dispatches that took a cancel: retrying, after a batch of first attempts, waiting for a turn.
  const cancelled = histories.filter(
    (h) => /UPDATE_ACCEPTED/.test(JSON.stringify(h.history)) && /"cancelDeliveries"/.test(JSON.stringify(h.history)),
  );
  expect(cancelled.length).toBeGreaterThanOrEqual(3);
});

test.each(histories.map((h) => [h.name, h.history] as const))('replays %s', async (name, history) => {
  await Worker.runReplayHistory({ workflowBundle: { codePath: testServers().workflowBundlePath } }, history, name);
});

test('every history replays with tracing on (the workflow bundled with the OpenTelemetry interceptors)', async () => {
  const { bundleWorkflows } = await import('../../../src/worker');
  const { TRACING_WORKFLOW_MODULES } = await import('../../../src/observability/tracing');
  const { makeWorkflowExporter } = await import('@temporalio/interceptors-opentelemetry');
  const { InMemorySpanExporter, SimpleSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
  const { Resource } = await import('@opentelemetry/resources');
  const workflowBundle = await bundleWorkflows(TRACING_WORKFLOW_MODULES);
  const sinks = { exporter: makeWorkflowExporter(new SimpleSpanProcessor(new InMemorySpanExporter()), new Resource({})) };
  for (const h of histories) await Worker.runReplayHistory({ workflowBundle, sinks }, h.history, h.name);
}, 120_000);
