import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startPostgres, stopPostgres } from '../../../../test/support/brokers/postgres';
import { startTestTemporal } from '../../../../test/support/temporal-dev-server';
import { buildService } from '../../../../test/support/build';
import { writeServers } from './servers';

const PACKAGE = join(__dirname, '..', '..');

/**
 * What the client package's tests share: a PostgreSQL cluster (a database per test file), a
 * Temporal dev server for the service processes they start, the service's build (they run it as
 * production does) and the package's own (its command, its tarball).
 */
export default async function globalSetup() {
  const dir = mkdtempSync(join(tmpdir(), 'at-client-node-'));
  const started = await Promise.allSettled([
    startPostgres(),
    startTestTemporal(),
    // The service's tiers' setup, when it ran first in this run, has built it already.
    process.env.AT_TEST_SERVERS ? Promise.resolve() : buildService(),
    promisify(execFile)(process.execPath, [join(PACKAGE, 'scripts', 'build.js')], { cwd: PACKAGE }),
  ]);
  const [postgres, temporal] = started;
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    // Jest runs no teardown after a failed setup: what did start is stopped here.
    if (postgres.status === 'fulfilled') stopPostgres(postgres.value);
    if (temporal.status === 'fulfilled') await temporal.value.stop();
    rmSync(dir, { recursive: true, force: true });
    throw (failed as PromiseRejectedResult).reason;
  }
  const file = join(dir, 'servers.json');
  const t = (temporal as PromiseFulfilledResult<Awaited<ReturnType<typeof startTestTemporal>>>).value;
  writeServers(file, {
    postgres: (postgres as PromiseFulfilledResult<Awaited<ReturnType<typeof startPostgres>>>).value,
    temporalAddress: t.address,
    temporalPid: t.pid,
    dir,
  });
  process.env.AT_CLIENT_NODE_SERVERS = file;
}
