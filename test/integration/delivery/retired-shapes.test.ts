import { NativeConnection } from '@temporalio/worker';
import { silentLogger } from '../../../src/kernel/logger';
import { RetiredShapesOpen } from '../../../src/temporal/retired-shapes';
import { startWorker } from '../../../src/worker';
import { startDispatchHarness } from '../../support/dispatch-harness';
import { testServers } from '../../support/servers';

/**
 * A worker meets a workflow of a shape this code no longer runs (here an `instanceOrder`
 * workflow, as releases before turns in our store started): it refuses to start and names it,
 * rather than fail that workflow's tasks for ever. Once it is gone, the worker starts.
 */
let h: Awaited<ReturnType<typeof startDispatchHarness>>;
let connection: NativeConnection;

beforeAll(async () => {
  h = await startDispatchHarness({}, { worker: false });
  connection = await NativeConnection.connect({ address: testServers().temporalAddress });
});
afterAll(async () => {
  await h?.close();
  await connection?.close();
});

/** Visibility catches up within moments: polls `count` until it is `want`. */
const countComesTo = async (query: string, want: number) => {
  const end = Date.now() + 10_000;
  while ((await h.client.workflow.count(query)).count !== want) {
    if (Date.now() > end) throw new Error(`visibility never counted ${want} for ${query}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

const workerOf = () =>
  startWorker({
    config: h.config,
    connection,
    store: h.store,
    log: silentLogger,
    workflowBundle: { codePath: testServers().workflowBundlePath },
  });

test('a retired instance-order workflow open on the task queue: the worker refuses to start and names it; once it ends, the worker starts', async () => {
  const workflowId = `order-retired-${Date.now()}`;
  const retired = await h.client.workflow.start('instanceOrder', {
    taskQueue: h.taskQueue,
    workflowId,
    args: [{ triggerId: 't', instanceKey: '1', queue: [], remembered: [] }],
  });
  const query = `TaskQueue = '${h.taskQueue}' AND WorkflowType = 'instanceOrder'`;
  await countComesTo(query, 1);

  const refused = await workerOf().then(
    (w) => w.stop().then(() => undefined),
    (e: unknown) => e,
  );
  expect(refused).toBeInstanceOf(RetiredShapesOpen);
  expect((refused as Error).message).toContain(`1 workflow(s) of a retired shape still open on this task queue (${workflowId})`);

  await retired.terminate('retired shape: ended by the operator');
  await countComesTo(`${query} AND ExecutionStatus = 'Running'`, 0);
  const worker = await workerOf();
  await worker.stop();
});
