import { rmSync } from 'node:fs';
import type { Express } from 'express';
import { TEST_RETRY } from '../../support/dispatch-harness';
import { ARRIVAL_WINDOW_MS, emitSignals, finalDispatches, mostWithin } from '../../support/pacing';
import { Received, startReceiver } from '../../support/receiver';
import { ServerProcess, startServerProcess, stopServerProcess } from '../../support/server-process';
import { serviceEnvIn } from '../../support/servers';
import { tempDir } from '../../support/test-app';
import { triggerBody } from '../../support/trigger-body';
import { killProcess, startWorkerProcess, WorkerProcess } from '../../support/worker-process';

/**
 * Limits per destination across a restart of the whole service: the compiled service (dist/, as
 * `npm start` runs it) on a data folder of its own and the shared Temporal server, either both
 * roles in one process or `--role=api` with a worker process. One trigger's webhook is under a
 * limit of 20 a second (burst 1); PACING_WAITING signals (300 unless told: ~15 s of deliveries)
 * are emitted at once. Once ~40 have arrived every process of the service is stopped with SIGTERM
 * and waited for, then started again on the same data folder, task queue and Temporal server.
 * No API keys are configured: the service is open to loopback callers with every scope
 * (triggers:read for `GET /api/destinations/limits` included), so the pacing helpers call it by URL.
 */
const N = Number(process.env.PACING_WAITING ?? 300);
const RATE = 20;
const STOP_AFTER = 40;
const PATH = '/paced/orders';
const LIMIT = 'restart-pace';

type Layout = 'one process' | 'api and worker processes';

/** The service's processes: the one with both roles, or the API and a worker. */
interface Service {
  api: ServerProcess;
  worker?: WorkerProcess;
}

const startService = async (layout: Layout, env: Record<string, string>): Promise<Service> => {
  if (layout === 'one process') return { api: await startServerProcess(env, 60_000) };
  const api = await startServerProcess(env, 60_000, ['--role=api']);
  try {
    return { api, worker: await startWorkerProcess(env) };
  } catch (e) {
    await stopServerProcess(api, 'SIGKILL');
    throw e;
  }
};

/** SIGTERM to every process of the service at once; resolves with their exit codes once all have exited. */
const stopService = async ({ api, worker }: Service) => {
  const [apiCode] = await Promise.all([stopServerProcess(api, 'SIGTERM'), worker && killProcess(worker, 'SIGTERM')]);
  return worker ? [apiCode, worker.exitCode] : [apiCode];
};

/** A failed test's leftovers: every process still running, killed. */
const killService = async (s: Service | undefined) => {
  if (!s) return;
  await stopServerProcess(s.api, 'SIGKILL');
  if (s.worker) await killProcess(s.worker);
};

/** supertest takes the service's base URL where the helpers take an app. */
const viaUrl = (s: Service) => s.api.url as unknown as Express;

const limitNow = async (s: Service) => {
  const res = await fetch(`${s.api.url}/api/destinations/limits`);
  expect(res.status).toBe(200);
  const { limits } = (await res.json()) as { limits: Array<{ name: string; backlog: number; in_flight?: number }> };
  return limits.find((l) => l.name === `webhook:${LIMIT}`)!;
};

const distinct = (received: readonly Received[]) => new Set(received.map((r) => String(r.headers['webhook-id']))).size;

test.each<Layout>(['one process', 'api and worker processes'])(
  `${N} signals to a webhook limited to ${RATE}/s, the whole service (%s) stopped with SIGTERM after ~${STOP_AFTER} arrivals and started again on the same data folder: each arrives once, the rate holds, nothing waits at the end`,
  async (layout) => {
    const rx = await startReceiver();
    const dir = tempDir('at-pacing-restart-');
    let service: Service | undefined;
    try {
      const env = serviceEnvIn(
        dir,
        {
          allow_private_targets: true,
          retry: TEST_RETRY,
          webhook_limits: [{ name: LIMIT, url_prefix: rx.url('/paced/'), max_per_second: RATE, burst: 1 }],
        },
        'pacing-restart',
      );
      service = await startService(layout, env);
      const created = await fetch(`${service.api.url}/api/action-triggers`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(
          triggerBody({ model: 'paced-restart', webhooks: [{ url: rx.url(PATH), http_method: 'POST', timeout_secs: 2 }] }),
        ),
      });
      expect(created.status).toBe(201);
      const ids = await emitSignals(viaUrl(service), 'paced-restart', N);

      await rx.waitFor(() => rx.count(PATH) >= STOP_AFTER, 60_000);
      const backlogAtStop = (await limitNow(service)).backlog;
      const stopping = Date.now();
      const codes = await stopService(service);
      const stopMs = Date.now() - stopping;
      service = undefined;
      const beforeRestart = rx.count(PATH);
      expect(codes).toEqual(codes.map(() => 0));
      // Deliveries are still waiting: the restart, not the first run, delivers the rest.
      expect(beforeRestart).toBeLessThan(N);

      service = await startService(layout, env);
      await rx.waitFor(() => distinct(rx.on(PATH)) >= N, (N / RATE) * 3000 + 60_000);
      const done = await finalDispatches(viaUrl(service), ids);
      // A repeat would come after the attempt's time-out: 3 s with none new before counting.
      for (let last = -1; last !== rx.count(PATH);) {
        last = rx.count(PATH);
        await new Promise((r) => setTimeout(r, 3000));
      }
      const after = await limitNow(service);
      const at = rx.on(PATH).map((r) => r.at);
      const most = mostWithin(at, ARRIVAL_WINDOW_MS);
      const firstAfter = rx.on(PATH)[beforeRestart]?.at;
      const again = done.flatMap((d) => d.actions.filter((a) => a.attempts !== 1)).length;
      console.log(
        `pacing restart (${layout}): N=${N} arrivals before the stop=${beforeRestart} (backlog ${backlogAtStop}) ` +
          `stop took ${stopMs} ms, most in 1 s=${most}, arrivals=${at.length} distinct=${distinct(rx.on(PATH))}, ` +
          `actions with attempts other than 1: ${again}; first arrival after the restart ${firstAfter === undefined ? '-' : firstAfter - stopping} ms ` +
          `after the stop began, span ${((Math.max(...at) - Math.min(...at)) / 1000).toFixed(1)} s`,
      );

      // Every delivery arrives, none twice: a graceful stop lets the attempts under way end.
      expect([rx.count(PATH), distinct(rx.on(PATH))]).toEqual([N, N]);
      // At sending, RATE a second with the burst of 1 allows RATE in any 1-s window, the slots that
      // fell while the service was down included; one more for jitter.
      expect(most).toBeLessThanOrEqual(RATE);
      expect(done.flatMap((d) => (d.actions.length === 1 ? [] : [d]))).toEqual([]);
      expect(
        done.flatMap((d) => d.actions.filter((a) => a.state !== 'delivered' || a.attempts !== 1).map((a) => `${a.state} in ${a.attempts}`)),
      ).toEqual([]);
      expect(after.backlog).toBe(0);
      const codesAtEnd = await stopService(service);
      service = undefined;
      expect(codesAtEnd).toEqual(codesAtEnd.map(() => 0));
    } finally {
      await killService(service);
      await rx.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
  240_000 + (N / RATE) * 3000,
);
