import { silentLogger } from '../../src/kernel/logger';
import { findTemporalCli } from '../../src/temporal/cli';
import { DevServer, startDevServer } from '../../src/temporal/dev-server';
import { freePort } from './free-port';

/** A Temporal dev server for tests: in memory, headless, on a free loopback port, namespace `default`. */
export const startTestTemporal = async (): Promise<DevServer> => {
  const cliPath = findTemporalCli(process.env.TEMPORAL_CLI_PATH);
  if (!cliPath) throw new Error('no Temporal CLI: run bash scripts/install-tools.sh (or set TEMPORAL_CLI_PATH)');
  return startDevServer({ cliPath, dbFile: undefined, port: await freePort(), uiPort: undefined, namespace: 'default', log: silentLogger });
};
