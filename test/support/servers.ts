import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BrokerServers } from './brokers';
import { RabbitNode } from './rabbitmq';

/** What the global setup started, for the test files (path in AT_TEST_SERVERS). */
export interface TestServers {
  temporalAddress: string;
  temporalPid: number | undefined;
  rabbit: RabbitNode & { pgid: number; url: string };
  brokers: BrokerServers;
  workflowBundlePath: string;
  dir: string;
}

export const writeServers = (file: string, s: TestServers) => writeFileSync(file, JSON.stringify(s));

export const testServers = (): TestServers => {
  const file = process.env.AT_TEST_SERVERS;
  if (!file) throw new Error('AT_TEST_SERVERS is not set: run the tests through jest (see jest.config.js globalSetup)');
  return JSON.parse(readFileSync(file, 'utf8')) as TestServers;
};

/**
 * The environment of a compiled service started on a data folder of its own, its config written
 * in it (as JSON), on the shared Temporal server with a task queue of its own (`name`).
 */
export const serviceEnvIn = (dir: string, config: Record<string, unknown>, name: string): Record<string, string> => {
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(config));
  return {
    DATA_DIR: join(dir, 'data'),
    ACTION_TRIGGERS_CONFIG: file,
    TEMPORAL_ADDRESS: testServers().temporalAddress,
    TEMPORAL_TASK_QUEUE: `${name}-${process.pid}-${Date.now()}`,
    WORKFLOW_BUNDLE_PATH: testServers().workflowBundlePath,
  };
};
