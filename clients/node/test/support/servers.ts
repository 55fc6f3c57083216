import { readFileSync, writeFileSync } from 'node:fs';
import type { PostgresServer } from '../../../../test/support/brokers/postgres';

/** What the client package's global setup started, for its test files (path in AT_CLIENT_NODE_SERVERS). */
export interface ClientNodeServers {
  postgres: PostgresServer;
  temporalAddress: string;
  temporalPid: number | undefined;
  dir: string;
}

export const writeServers = (file: string, s: ClientNodeServers) => writeFileSync(file, JSON.stringify(s));

export const clientNodeServers = (): ClientNodeServers => {
  const file = process.env.AT_CLIENT_NODE_SERVERS;
  if (!file) throw new Error("AT_CLIENT_NODE_SERVERS is not set: run the tests through jest's client-node project (jest.config.js)");
  return JSON.parse(readFileSync(file, 'utf8')) as ClientNodeServers;
};
