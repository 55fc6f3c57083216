import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { startBenchStack } from './server';

const ROOT = join(__dirname, '..');

/**
 * `npm run bench -- django`: the time a Django save takes with the Python client installed
 * (one outbox INSERT in the save's transaction; and with the row sent on commit), without it,
 * and with django-action-triggers calling its webhook in the save's handler, alternating runs
 * (clients/python/bench/save_time.py). The service here accepts the signals (an API process
 * on a Temporal dev server); the origin's webhook goes to a loopback receiver.
 */
export const benchDjango = async () => {
  const stack = await startBenchStack('django', 'api');
  try {
    await new Promise<void>((resolve, reject) => {
      const python = spawn(join(ROOT, '.tools/python-client/bin/python'), [join(ROOT, 'clients/python/bench/save_time.py')], {
        env: { ...process.env, ATC_BASE_URL: stack.service.url, ATC_BENCH_RECEIVER: stack.rx.url('') },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      python.on('error', reject);
      python.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`save_time.py exited ${code}`))));
    });
  } finally {
    await stack.stop();
  }
};
