import { readFileSync, writeFileSync } from 'node:fs';
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
