import { ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';

// An API process of a cluster asks the primary for the cluster's /metrics page; a primary that
// does not answer, or is gone, is a 503 and never takes the API process down.

const ASK = 'action-triggers:metrics?';

const startChild = async (askTimeoutMs: number) => {
  const child = fork(join(__dirname, '..', '..', 'support', 'cluster-metrics-child.ts'), [], {
    execArgv: ['-r', 'ts-node/register/transpile-only'],
    env: { ...process.env, ASK_TIMEOUT_MS: String(askTimeoutMs) },
    stdio: 'pipe',
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.on('message', (m: { type?: string; port?: number }) => {
      if (m?.type === 'listening') resolve(m.port!);
    });
    child.once('exit', (code) => reject(new Error(`the child exited (${code})`)));
  });
  return { child, url: `http://127.0.0.1:${port}/metrics` };
};

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });

test('a primary that answers: its page; one that does not within the time-out: 503 naming why', async () => {
  const { child, url } = await startChild(300);
  try {
    let answer = true;
    child.on('message', (m: { type?: string; id?: number }) => {
      if (m?.type === ASK && answer) child.send({ type: 'action-triggers:metrics', id: m.id, body: 'cluster_page 1\n' });
    });
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toBe('cluster_page 1\n');
    answer = false;
    const started = Date.now();
    const silent = await fetch(url);
    expect(silent.status).toBe(503);
    expect(((await silent.json()) as { detail?: string; title?: string }).detail ?? '').toMatch(/primary did not answer/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  } finally {
    await stop(child);
  }
});

test('a primary gone (IPC channel closed): 503 at once, and the process keeps serving', async () => {
  const { child, url } = await startChild(10_000);
  try {
    child.disconnect();
    for (let i = 0; i < 2; i++) {
      const started = Date.now();
      const res = await fetch(url);
      expect(res.status).toBe(503);
      expect(Date.now() - started).toBeLessThan(5_000);
    }
    expect(child.exitCode).toBeNull();
  } finally {
    await stop(child);
  }
});
