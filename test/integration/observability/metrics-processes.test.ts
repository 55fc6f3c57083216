import { rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { startHarnessForWorkerProcess } from '../../support/dispatch-harness';
import { freePorts } from '../../support/free-port';
import { parsePrometheusText, valueOf } from '../../support/prom-text';
import { startServerProcess, stopServerProcess, ServerProcess } from '../../support/server-process';
import { tempDir } from '../../support/test-app';
import { killProcess, startWorkerProcess } from '../../support/worker-process';

/** One request on a connection of its own, so the cluster may hand each to a different process. */
const fresh = (url: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest(url, { agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        text += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end();
  });

const listeningPids = (server: ServerProcess) =>
  [...server.output().matchAll(/"msg":"action-triggers API listening".*?"pid":(\d+)/g)].map((m) => Number(m[1]));

test('API_PROCESSES=2: the page any process serves adds up every process', async () => {
  const dir = tempDir();
  let server: ServerProcess | undefined;
  try {
    server = await startServerProcess({ DATA_DIR: dir, API_PROCESSES: '2' }, 60_000, ['--role=api']);
    const deadline = Date.now() + 30_000;
    while (listeningPids(server).length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const answers = await Promise.all(Array.from({ length: 40 }, () => fresh(`${server!.url}/healthz`)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    for (let i = 0; i < 4; i++) {
      const page = await fresh(`${server.url}/metrics`);
      expect(page.status).toBe(200);
      // Whichever process answers: all 40 requests, counted by two processes (each also serves a share of the scrapes).
      expect(
        valueOf(parsePrometheusText(page.body), 'action_triggers_http_requests_total', { route: '/healthz', method: 'GET', status: '200' }),
      ).toBe(40);
    }
    expect(await stopServerProcess(server, 'SIGTERM')).toBe(0);
    server = undefined;
  } finally {
    if (server) await stopServerProcess(server, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}, 90_000);

test('--role=worker serves /metrics and /healthz on METRICS_PORT, and the Temporal SDK its own page on TEMPORAL_METRICS_ADDRESS', async () => {
  const { h, workerEnv } = await startHarnessForWorkerProcess();
  const [metricsPort, temporalPort] = await freePorts(2);
  const worker = await startWorkerProcess({
    ...workerEnv,
    METRICS_PORT: String(metricsPort),
    TEMPORAL_METRICS_ADDRESS: `127.0.0.1:${temporalPort}`,
  });
  try {
    const page = await fresh(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(page.status).toBe(200);
    const samples = parsePrometheusText(page.body);
    expect(valueOf(samples, 'action_triggers_projection_lag_events')).toBe(0);
    expect(samples.some((s) => s.name === 'process_resident_memory_bytes')).toBe(true);
    expect((await fresh(`http://127.0.0.1:${metricsPort}/api/action-triggers`)).status).toBe(404);
    // A container's health check (docker-compose.yml) asks the worker here.
    const health = await fresh(`http://127.0.0.1:${metricsPort}/healthz`);
    expect([health.status, JSON.parse(health.body)]).toEqual([200, { status: 'ok' }]);
    // The SDK's page fills as its worker polls.
    let sdk = '';
    for (let i = 0; i < 50 && !/^temporal_\w+/m.test(sdk); i++) {
      sdk = (await fresh(`http://127.0.0.1:${temporalPort}/metrics`)).body;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(sdk).toMatch(/^temporal_\w+/m);
  } finally {
    await killProcess(worker, 'SIGTERM');
    await h.close();
  }
}, 90_000);
