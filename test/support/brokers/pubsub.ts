import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PubSub } from '@google-cloud/pubsub';
import { freePort } from '../free-port';
import { ROOT, spawnServer, waitUntil } from './process-group';

/**
 * A Pub/Sub server on loopback speaking plain gRPC: Google's emulator (Debian package
 * google-cloud-cli-pubsub-emulator) where installed, else Google's Go fake pstest built into
 * .tools/pubsub-fake (scripts/install-tools.sh). Both keep everything in memory.
 * `apiEndpoint` is what PUBSUB_EMULATOR_HOST would hold.
 */
export interface PubSubServer {
  apiEndpoint: string;
  projectId: string;
  kind: 'emulator' | 'pstest';
  pgid: number;
}

const EMULATOR_LIB = '/usr/lib/google-cloud-sdk/platform/pubsub-emulator/lib';
const FAKE = join(ROOT, '.tools', 'pubsub-fake', 'pubsub-fake');

const emulatorJar = () => {
  if (!existsSync(EMULATOR_LIB)) return undefined;
  const jar = readdirSync(EMULATOR_LIB).find((f) => /^cloud-pubsub-emulator-.*\.jar$/.test(f));
  return jar && join(EMULATOR_LIB, jar);
};

const answers = (client: PubSub) => async () => {
  try {
    await client.getTopics({ gaxOpts: { timeout: 2000, retry: null } });
    return true;
  } catch {
    return false;
  }
};

export const startPubSub = async (dir: string): Promise<PubSubServer> => {
  const port = await freePort();
  const jar = emulatorJar();
  const child = jar
    ? spawnServer('pubsub', dir, 'java', [
        '-Xmx256m',
        '-XX:+UseSerialGC',
        '-XX:TieredStopAtLevel=1',
        '-jar',
        jar,
        '--host=127.0.0.1',
        `--port=${port}`,
      ])
    : spawnServer('pubsub', dir, FAKE, ['-port', String(port)]);
  const server = { apiEndpoint: `127.0.0.1:${port}`, projectId: 'at-test', kind: jar ? ('emulator' as const) : ('pstest' as const) };
  const client = new PubSub({
    apiEndpoint: server.apiEndpoint,
    projectId: server.projectId,
    emulatorMode: true,
    universeDomain: 'googleapis.com',
  });
  try {
    await waitUntil('pubsub', dir, child, answers(client), 60_000);
  } finally {
    await client.close();
  }
  return { ...server, pgid: child.pid! };
};
