import { join } from 'node:path';
import { freePort } from '../free-port';
import { ROOT, spawnServer, waitUntil } from './process-group';

/**
 * moto in server mode: one HTTP endpoint for SQS, SNS, Lambda and EventBridge (any region, any static credentials;
 * state in memory). Installed into .tools/moto by scripts/install-tools.sh.
 */
export interface MotoServer {
  endpoint: string;
  region: string;
  pgid: number;
}

const MOTO = join(ROOT, '.tools', 'moto', 'bin', 'moto_server');

const answers = async (endpoint: string) => {
  try {
    return (await fetch(`${endpoint}/moto-api/`)).ok;
  } catch {
    return false;
  }
};

export const startMoto = async (dir: string): Promise<MotoServer> => {
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const child = spawnServer('moto', dir, MOTO, ['-H', '127.0.0.1', '-p', String(port)]);
  await waitUntil('moto', dir, child, () => answers(endpoint), 30_000);
  // Lambda functions run in moto's own process, not in Docker (there is none here).
  const configured = await fetch(`${endpoint}/moto-api/config`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ lambda: { use_docker: false } }),
  });
  if (!configured.ok) throw new Error(`moto: POST /moto-api/config answered ${configured.status}`);
  return { endpoint, region: 'us-east-1', pgid: child.pid! };
};
