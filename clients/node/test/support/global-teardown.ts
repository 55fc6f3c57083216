import { rmSync } from 'node:fs';
import { stopPostgres } from '../../../../test/support/brokers/postgres';
import { clientNodeServers } from './servers';

export default async function globalTeardown() {
  const s = clientNodeServers();
  stopPostgres(s.postgres);
  if (s.temporalPid !== undefined)
    try {
      process.kill(s.temporalPid, 'SIGKILL');
    } catch {
      /* gone */
    }
  rmSync(s.dir, { recursive: true, force: true });
}
