import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { startBrokers, stopBrokers } from './brokers';
import { killGroup } from './brokers/process-group';
import { amqpUrlOf, startRabbit } from './rabbitmq';
import { freePort } from './free-port';
import { writeServers } from './servers';
import { buildService } from './build';
import { startTestTemporal } from './temporal-dev-server';

/**
 * Starts the real servers every integration test shares: a Temporal dev server (in memory),
 * a private RabbitMQ node and the other brokers' servers (test/support/brokers); bundles the
 * workflow code once; compiles the service (dist/) that tests start as a process.
 */
export default async function globalSetup() {
  const dir = mkdtempSync(join(tmpdir(), 'at-servers-'));
  const rabbitNode = {
    dir: join(dir, 'rabbitmq'),
    port: await freePort(),
    distPort: await freePort(),
    name: `at-test-${process.pid}@localhost`,
  };
  // Google's clients must never probe the GCE metadata server: the tests talk to loopback only.
  process.env.METADATA_SERVER_DETECTION = 'none';
  const started = await Promise.allSettled([
    startTestTemporal(),
    startRabbit(rabbitNode),
    startBrokers(join(dir, 'brokers')),
    bundleWorkflowCode({
      workflowsPath: require.resolve('../../src/workflows'),
      logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} },
    }),
    // The service processes tests start run the build, as production does.
    buildService(),
  ]);
  const failed = started.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []));
  if (failed.length > 0) {
    // Jest runs no teardown after a failed setup: what did start is stopped here.
    const [temporalStarted, rabbitStarted, brokersStarted] = started;
    if (temporalStarted.status === 'fulfilled') await temporalStarted.value.stop();
    if (rabbitStarted.status === 'fulfilled') killGroup(rabbitStarted.value);
    if (brokersStarted.status === 'fulfilled') stopBrokers(brokersStarted.value);
    rmSync(dir, { recursive: true, force: true });
    throw failed[0];
  }
  const [temporal, pgid, brokers, bundle] = started.map((s) => (s as PromiseFulfilledResult<unknown>).value) as [
    Awaited<ReturnType<typeof startTestTemporal>>,
    number,
    Awaited<ReturnType<typeof startBrokers>>,
    Awaited<ReturnType<typeof bundleWorkflowCode>>,
  ];
  const workflowBundlePath = join(dir, 'workflow-bundle.js');
  writeFileSync(workflowBundlePath, bundle.code);
  const file = join(dir, 'servers.json');
  writeServers(file, {
    temporalAddress: temporal.address,
    temporalPid: temporal.pid,
    rabbit: { ...rabbitNode, pgid, url: amqpUrlOf(rabbitNode) },
    brokers,
    workflowBundlePath,
    dir,
  });
  process.env.AT_TEST_SERVERS = file;
  process.env.TEMPORAL_ADDRESS = temporal.address;
}
