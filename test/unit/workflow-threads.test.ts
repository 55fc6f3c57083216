import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The module itself, not a copy of its exports: the SDK starts threads with `require(…).Worker`.
import workerThreads from 'node:worker_threads';
import request from 'supertest';
import { isSdkWorkflowThread, withWatchedWorkflowThreads } from '../../src/temporal/workflow-threads';
import { buildMetricsApp } from '../../src/ops/metrics-route';
import { createAuth } from '../../src/http/auth';
import { noMetrics } from '../../src/observability/metrics';

/**
 * The SDK's workflow threads start through our bootstrap: calls into the sandbox run without
 * Node's per-call watchdog thread, and a call that never returns is reported by the main thread.
 * A stand-in for the SDK's thread script (same file name) makes the calls a workflow thread makes.
 */

/** The class before any wrapping. */
const SdkWorker = workerThreads.Worker;
let dir: string;
let script: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'workflow-threads-'));
  const lib = join(dir, 'node_modules/@temporalio/worker/lib/workflow');
  mkdirSync(lib, { recursive: true });
  script = join(lib, 'workflow-worker-thread.js');
  writeFileSync(
    script,
    `
    const vm = require('node:vm');
    const { parentPort } = require('node:worker_threads');
    const context = vm.createContext({});
    parentPort.on('message', (ms) => {
      // As the SDK calls in: with its deadlock time-out. A call of \`ms\` busy milliseconds.
      const value = new vm.Script('{ const end = Date.now() + ' + ms + '; while (Date.now() < end) {} } 42').runInContext(context, { timeout: 5000, displayErrors: true });
      parentPort.postMessage({ value, patched: vm.Script.prototype.runInContext.name });
    });`,
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ask = (w: workerThreads.Worker, ms: number) =>
  new Promise<{ value: number; patched: string }>((resolve) => {
    w.once('message', resolve);
    w.postMessage(ms);
  });

test('a workflow thread runs its calls without a watchdog thread each, and a call over the bound is reported once, while it runs', async () => {
  const stuck: number[] = [];
  const { created: thread, watch } = await withWatchedWorkflowThreads(
    async () => new workerThreads.Worker(script),
    (ms) => stuck.push(ms),
    300,
  );
  try {
    // Only while `create` runs are the SDK's threads started through the bootstrap.
    expect(workerThreads.Worker).toBe(SdkWorker);
    expect(watch.threads).toBe(1);
    expect(await ask(thread, 0)).toEqual({ value: 42, patched: 'runWithoutWatchdogThread' });
    expect(stuck).toEqual([]);
    const long = ask(thread, 1500);
    await new Promise((r) => setTimeout(r, 900));
    expect(watch.longestCallMs()).toBeGreaterThan(600);
    expect(await long).toMatchObject({ value: 42 });
    expect(stuck).toHaveLength(1);
    expect(stuck[0]).toBeGreaterThan(300);
    expect(watch.longestCallMs()).toBe(0);
  } finally {
    watch.stop();
    await thread.terminate();
  }
});

test("overlapping Worker.create calls each watch their own threads; the module's Worker is restored after the last", async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const first = withWatchedWorkflowThreads(
    async () => {
      const w = new workerThreads.Worker(script);
      await gate;
      return w;
    },
    () => undefined,
  );
  const second = await withWatchedWorkflowThreads(
    async () => new workerThreads.Worker(script),
    () => undefined,
  );
  expect(workerThreads.Worker).not.toBe(SdkWorker);
  release();
  const done = await first;
  try {
    expect(workerThreads.Worker).toBe(SdkWorker);
    expect([done.watch.threads, second.watch.threads]).toEqual([1, 1]);
    expect((await ask(second.created, 0)).patched).toBe('runWithoutWatchdogThread');
  } finally {
    for (const x of [done, second]) {
      x.watch.stop();
      await x.created.terminate();
    }
  }
});

test('other threads started during Worker.create are left as they are', async () => {
  const { created: thread, watch } = await withWatchedWorkflowThreads(
    async () =>
      new workerThreads.Worker(
        'require("node:worker_threads").parentPort.postMessage(require("node:vm").Script.prototype.runInContext.name)',
        { eval: true },
      ),
    () => undefined,
  );
  try {
    expect(await new Promise((r) => thread.once('message', r))).toBe('runInContext');
  } finally {
    watch.stop();
    await thread.terminate();
  }
});

test("the installed SDK's workflow thread script is the one the bootstrap recognises", () => {
  // Renamed in an SDK upgrade, its threads would start as before: correct, only slower again.
  const script = require.resolve('@temporalio/worker/lib/workflow/workflow-worker-thread.js');
  expect(isSdkWorkflowThread(script)).toBe(true);
});

test('/healthz answers 503 with the reason while workflow code is stuck, 200 otherwise', async () => {
  let stuckMs = 0;
  const app = buildMetricsApp(noMetrics, createAuth([]), () => stuckMs);
  expect((await request(app).get('/healthz').expect(200)).body).toEqual({ status: 'ok' });
  stuckMs = 7300;
  const stuck = (await request(app).get('/healthz').expect(503)).body as { status: string; reason: string };
  expect(stuck.status).toBe('stuck');
  expect(stuck.reason).toMatch(/workflow code has run for 7 s in one call.*restart the process/);
});
