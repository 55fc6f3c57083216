import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TEST_RETRY } from '../../support/dispatch-harness';
import { killPostgres, PostgresServer, restartPostgres, startPostgres, stopPostgres } from '../../support/brokers/postgres';
import { Receiver, startReceiver } from '../../support/receiver';
import { ServerProcess, startServerProcess, stopServerProcess } from '../../support/server-process';
import { testServers } from '../../support/servers';
import { tempDir } from '../../support/test-app';
import { killProcess, startWorkerProcess, WorkerProcess } from '../../support/worker-process';
import { execFileSync } from 'node:child_process';
import { findTemporalCli } from '../../../src/temporal/cli';
import { triggerBody } from '../../support/trigger-body';

/**
 * The service on a PostgreSQL store whose server is killed (SIGKILL, as a crash) and started
 * again while signals arrive: an API process and a worker process, a real receiver, the shared
 * Temporal dev server.
 */
let pg: PostgresServer;
let rx: Receiver;
let api: ServerProcess;
let worker: WorkerProcess;

beforeAll(async () => {
  pg = await startPostgres();
  rx = await startReceiver();
  const dir = tempDir('at-pg-outage-');
  const configFile = join(dir, 'config.json');
  writeFileSync(
    configFile,
    JSON.stringify({ retry: TEST_RETRY, allow_private_targets: true, postgres: { schema: 'outage', connect_timeout_ms: 1000 } }),
  );
  const env = {
    DATA_DIR: dir,
    ACTION_TRIGGERS_CONFIG: configFile,
    TEMPORAL_ADDRESS: testServers().temporalAddress,
    TEMPORAL_TASK_QUEUE: `pg-outage-${process.pid}`,
    WORKFLOW_BUNDLE_PATH: testServers().workflowBundlePath,
    EVENT_STORE: 'postgres',
    POSTGRES_URL: pg.url,
  };
  api = await startServerProcess(env, 60_000, ['--role=api']);
  worker = await startWorkerProcess(env);
  const created = await fetch(`${api.url}/api/action-triggers`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(
      triggerBody({ webhooks: [{ url: rx.url('/orders'), http_method: 'POST' }], payload: { id: '{{ instance.id }}' } }),
    ),
  });
  expect(created.status).toBe(201);
}, 120_000);

afterAll(async () => {
  if (api) await stopServerProcess(api, 'SIGKILL');
  if (worker) await killProcess(worker);
  await rx?.close();
  if (pg) stopPostgres(pg);
});

const timedReadyz = async () => {
  const started = Date.now();
  const res = await fetch(`${api.url}/readyz`, { signal: AbortSignal.timeout(5000) });
  return {
    ms: Date.now() - started,
    status: res.status,
    body: (await res.json()) as { checks: Record<string, boolean>; reasons?: Record<string, string> },
  };
};

test('PostgreSQL killed and restarted while signals arrive: writes answer 503 with a reason and Retry-After, never 500; the processes stay up; every signal answered 202 is delivered', async () => {
  const answers: { id: string; status: number; retryAfter: string | null; body: Record<string, unknown> }[] = [];
  let sending = true;
  let n = 0;
  // Workflow ids (`signal-<id>`) are unique in the namespace every test file shares: signal ids of
  // this run only (with `order-<n>`, another file's finished `signal-order-1` made this one a duplicate).
  const run = `outage-${process.pid}-${Date.now()}`;
  const sender = (async () => {
    while (sending) {
      const id = `${run}-${++n}`;
      const res = await fetch(`${api.url}/api/signals`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id, signal: 'post_save', app_label: 'shop', model_name: 'order', instance: { id } }),
      });
      answers.push({
        id,
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
        body: (await res.json()) as Record<string, unknown>,
      });
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  await new Promise((r) => setTimeout(r, 1500));
  killPostgres(pg);
  await new Promise((r) => setTimeout(r, 1500));
  // Away: /readyz answers within its 1 s bound, not ready, and says the store is why.
  const away = await timedReadyz();
  expect(away.ms).toBeLessThan(1000);
  expect(away.status).toBe(503);
  expect(JSON.stringify(away.body.reasons)).toMatch(/event store/);
  await new Promise((r) => setTimeout(r, 1500));
  pg = await restartPostgres(pg);
  await new Promise((r) => setTimeout(r, 2000));
  sending = false;
  await sender;

  const statuses = new Set(answers.map((a) => a.status));
  expect([...statuses].sort()).toEqual([202, 503]);
  for (const refused of answers.filter((a) => a.status === 503)) {
    expect(refused.body.detail).toMatch(/unavailable/);
    expect(refused.retryAfter).toBe('2');
  }
  const accepted = answers.filter((a) => a.status === 202).map((a) => a.id);
  // Some before the kill, some after the restart.
  expect(accepted.length).toBeGreaterThan(20);
  expect(answers[answers.length - 1]!.status).toBe(202);
  await rx
    .waitFor(() => new Set(rx.on('/orders').map((r) => JSON.parse(r.body).id)).size >= accepted.length, 90_000)
    .catch((e: Error) => {
      const got = new Set(rx.on('/orders').map((r) => JSON.parse(r.body).id as string));
      const missing = accepted.filter((id) => !got.has(id));
      // What the processes said of the missing signals, and their warnings other than the outage's own.
      const about = (out: string) =>
        out
          .split('\n')
          .filter(
            (l) =>
              missing.some((id) => l.includes(`"${id}"`)) ||
              ((l.includes('"warn"') || l.includes('"error"')) && !l.includes('ECONNREFUSED')),
          )
          .join('\n')
          .slice(-8000);
      const state = `worker exit ${worker.exitCode ?? worker.signalCode ?? 'none'}, api exit ${api.child.exitCode ?? api.child.signalCode ?? 'none'}`;
      const temporal = (args: string[]) => {
        try {
          return execFileSync(findTemporalCli(undefined)!, [...args, '--address', testServers().temporalAddress], {
            encoding: 'utf8',
            timeout: 20_000,
          }).slice(-3000);
        } catch (x) {
          return String(x);
        }
      };
      const queue = temporal(['task-queue', 'describe', '--task-queue', `pg-outage-${process.pid}`]);
      const first = temporal(['workflow', 'show', '--workflow-id', `signal-${missing[0]}`]);
      throw new Error(
        `${e.message}; ${state}; missing ${missing.join(',')}\n--- api ---\n${about(api.output())}\n--- worker (last 8000 characters) ---\n${worker.output().slice(-8000)}\n--- task queue ---\n${queue}\n--- first missing ---\n${first}`,
      );
    });
  const delivered = new Set(rx.on('/orders').map((r) => JSON.parse(r.body).id as string));
  expect(accepted.filter((id) => !delivered.has(id))).toEqual([]);
  expect(api.child.exitCode).toBeNull();
  expect(worker.exitCode).toBeNull();
  // Back: ready again once the store answers.
  for (let deadline = Date.now() + 15_000; (await timedReadyz()).status !== 200 && Date.now() < deadline;)
    await new Promise((r) => setTimeout(r, 250));
  expect((await timedReadyz()).status).toBe(200);
}, 180_000);
