import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { historyText, loadHistories } from '../../support/histories';
import { testServers } from '../../support/servers';

/**
 * Workflow changes must stay deterministic for dispatches already running: every recorded
 * history in test/fixtures/histories (made with
 * `RECORD_HISTORIES=1 npx jest test/integration/delivery/dispatch.test.ts
 * test/integration/signals/cancel-deliveries.test.ts`: dispatches, and dispatches that took a
 * cancel) replays against today's workflow code (bundled by the global setup) without a non-determinism error.
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

test('recorded histories cover the shapes clients start: first attempts local and in a batch, a dispatch that waited for its turn kept in our store, and dispatches that took a cancel', () => {
  const inputs = histories.map((h) => historyText(h.history));
  expect(histories.every((h) => workflowTypeOf(h.history) === 'dispatchSignal')).toBe(true);
  expect(inputs.some((t) => t.includes('"attemptsAs":"local-first"'))).toBe(true);
  expect(inputs.some((t) => t.includes('"attemptsAs":"batched"'))).toBe(true);
  expect(
    histories.some((h) => signalsIn(h.history).includes('"signalName":"turn"') && /"turns":\{"position"/.test(historyText(h.history))),
  ).toBe(true);
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
