import { readFileSync } from 'node:fs';
import { silentLogger } from '../../../src/kernel/logger';
import { findTemporalCli } from '../../../src/temporal/cli';
import { DEV_SERVER_GOGC, startDevServer } from '../../../src/temporal/dev-server';
import { freePort } from '../../support/free-port';
import { testServers } from '../../support/servers';

/** The environment a running process was started with, from /proc. */
const environOf = (pid: number) =>
  new Map(
    readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)] as const),
  );

describe('the Temporal dev server we start', () => {
  it('collects garbage less often than Go does by default (GOGC=400), unless the caller set GOGC', async () => {
    expect(DEV_SERVER_GOGC).toBe('400');
    const shared = testServers().temporalPid!;
    expect(environOf(shared).get('GOGC')).toBe(process.env.GOGC ?? '400');

    const before = process.env.GOGC;
    process.env.GOGC = '150';
    try {
      const server = await startDevServer({
        cliPath: findTemporalCli(undefined)!,
        dbFile: undefined,
        port: await freePort(),
        uiPort: undefined,
        namespace: 'default',
        log: silentLogger,
      });
      try {
        expect(environOf(server.pid!).get('GOGC')).toBe('150');
      } finally {
        await server.stop();
      }
    } finally {
      if (before === undefined) delete process.env.GOGC;
      else process.env.GOGC = before;
    }
  });
});
