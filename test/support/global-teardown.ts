import { rmSync } from 'node:fs';
import { stopBrokers } from './brokers';
import { testServers } from './servers';

export default async function globalTeardown() {
  const s = testServers();
  const current = s.rabbit.pgid;
  for (const pid of [current, s.temporalPid]) {
    if (pid === undefined) continue;
    try {
      process.kill(pid === current ? -pid : pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  stopBrokers(s.brokers);
  rmSync(s.dir, { recursive: true, force: true });
}
