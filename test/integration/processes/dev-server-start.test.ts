import { createServer, Server } from 'node:net';
import { once } from 'node:events';
import { createLogger } from '../../../src/kernel/logger';
import { findTemporalCli } from '../../../src/temporal/cli';
import { startDevServer } from '../../../src/temporal/dev-server';
import { freePort } from '../../support/free-port';

/** A listener on a loopback port: the dev server, told to bind it, exits while starting. */
const takePort = async (port: number) => {
  const server: Server = createServer();
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  return server;
};

const options = async (metricsPort: number, onWarn: (fields: Record<string, unknown>) => void) => ({
  cliPath: findTemporalCli(undefined)!,
  dbFile: undefined,
  port: await freePort(),
  uiPort: undefined,
  namespace: 'default',
  metricsPort,
  log: createLogger('warn', (line) => onWarn(JSON.parse(line) as Record<string, unknown>)),
});

describe('starting the Temporal dev server', () => {
  it('starts it once more when it exits while starting, and says why it exited', async () => {
    const metricsPort = await freePort();
    const taken = await takePort(metricsPort);
    const warnings: Record<string, unknown>[] = [];
    // The port is let go as soon as the first start is reported failed, so the second can bind it.
    const server = await startDevServer(
      await options(metricsPort, (w) => {
        warnings.push(w);
        taken.close();
      }),
    );
    try {
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.msg).toBe('the Temporal dev server exited while starting; starting it once more');
      expect(warnings[0]!.stderr).toMatch(
        new RegExp(`^exit code 1: Error: can't set metrics port ${metricsPort}: .*address already in use`),
      );
      const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(metrics.status).toBe(200);
    } finally {
      await server.stop();
    }
  }, 120_000);

  it('fails with the reason when it exits a second time', async () => {
    const metricsPort = await freePort();
    const taken = await takePort(metricsPort);
    try {
      await expect(startDevServer(await options(metricsPort, () => undefined))).rejects.toThrow(
        new RegExp(`exited twice while starting: exit code 1: Error: can't set metrics port ${metricsPort}`),
      );
    } finally {
      taken.close();
    }
  }, 120_000);
});
