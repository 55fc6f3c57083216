import autocannon from 'autocannon';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { request, Agent } from 'undici';
import { silentLogger } from '../src/kernel/logger';
import { installSdkLogging } from '../src/worker';
import { startReceiver } from '../test/support/receiver';
import { jsonPoster } from './post';
import { benchMetricsConfig, startBenchTemporal, startService } from './server';
import { actionRows, actionsOfRecorded, actionsOfWorkflows, cpuSeconds, FIXTURES, serverCounter } from './temporal-costs';
import { pct } from './stats';

const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} };
const SUSTAIN_S = Number(process.env.BENCH_SUSTAIN_S ?? 60);
const SHORT_S = Number(process.env.BENCH_DURATION_S ?? 10);
const PACED_S = Math.min(SUSTAIN_S, 30);
const RATES = (process.env.BENCH_RATES ?? '20,50').split(',').map(Number);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** One webhook delivered at its first attempt, as the replay tests hold it (test/fixtures/histories): the recorded baseline. */
const RECORDED_HISTORY = join(FIXTURES, 'the-same-signal-id-emitted-three-times-starts-one-dispatch.json');
/** Histories read back at the end of the run to count actions. */
const HISTORIES = 20;

/** (a) Empty workflows started and completed per second, 50 in flight, on the bench's Temporal server. */
export const floor = async (address: string) => {
  const taskQueue = 'bench-noop';
  const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('./workflows/noop'), logger: quiet });
  const nativeConnection = await NativeConnection.connect({ address });
  const worker = await Worker.create({ connection: nativeConnection, taskQueue, workflowBundle: { code } });
  const running = worker.run();
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  let done = 0;
  const deadline = Date.now() + SHORT_S * 1000;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: 50 }, async (_, lane) => {
      for (let i = 0; Date.now() < deadline; i++) {
        await client.workflow.execute('noopWorkflow', { taskQueue, workflowId: `noop-${lane}-${i}-${started}` });
        done++;
      }
    }),
  );
  const rate = done / ((Date.now() - started) / 1000);
  worker.shutdown();
  await running;
  await connection.close();
  await nativeConnection.close();
  return rate;
};

/** Waits until no workflow is running on the server. */
export const drained = async (address: string) => {
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  for (let i = 0; i < 600 && (await client.workflow.count('ExecutionStatus="Running"')).count > 0; i++) await sleep(500);
  await connection.close();
};

/** `npm run bench -- dispatch`: all on loopback, one Temporal dev server, the service as its own process. */
export const benchDispatch = async () => {
  installSdkLogging(silentLogger, 'error');
  const dir = mkdtempSync(join(tmpdir(), 'at-bench-dispatch-'));
  // The server's Prometheus metrics cost it ~10% CPU: only on request.
  const temporal = await startBenchTemporal({ metrics: process.env.BENCH_TEMPORAL_METRICS === '1' });
  const eagerCounters = () =>
    Promise.all(
      ['workflow_eager_execution', 'activity_eager_execution'].map((n) =>
        temporal.metricsUrl ? serverCounter(temporal.metricsUrl, n) : Promise.resolve(0),
      ),
    );
  const rx = await startReceiver();
  const configFile = join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify({ allow_private_targets: true, ...benchMetricsConfig() }));
  console.log(`metrics ${process.env.BENCH_METRICS === '0' ? 'off' : 'on'} (BENCH_METRICS)`);
  const service = await startService({ DATA_DIR: dir, TEMPORAL_ADDRESS: temporal.address, ACTION_TRIGGERS_CONFIG: configFile });
  const poster = jsonPoster(service.url);
  const api = poster.post;
  try {
    const a = await floor(temporal.address);

    // (b) Signals accepted per second (a model no trigger matches: acceptance only).
    const accept = await autocannon({
      url: `${service.url}/api/signals`,
      connections: 50,
      duration: SHORT_S,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ signal: 'post_save', app_label: 'bench', model_name: 'unmatched', instance: { id: 1 } }),
    });
    const b = accept.requests.average;
    await drained(temporal.address); // let the accepted dispatches finish before measuring deliveries

    // (c) Sustained deliveries per second: one trigger, one webhook; 50 emitters keep the pipeline full.
    await api('/api/action-triggers', {
      config_signals: [{ signal: 'post_save' }],
      content_types: [{ app_label: 'bench', model_name: 'order' }],
      active: true,
      webhooks: [{ url: rx.url('/sustain'), http_method: 'POST' }],
    });
    const cpuAtStart = { temporal: cpuSeconds(temporal.pid!), service: cpuSeconds(service.child.pid!) };
    const sustainStart = Date.now();
    const sustainEnd = sustainStart + SUSTAIN_S * 1000;
    let emitted = 0;
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        while (Date.now() < sustainEnd) {
          // Emit no faster than deliveries keep up: at most 200 signals ahead of the receiver.
          if (emitted - rx.count('/sustain') > 200) {
            await sleep(5);
            continue;
          }
          emitted++;
          await api('/api/signals', { signal: 'post_save', app_label: 'bench', model_name: 'order', instance: { id: emitted } });
        }
      }),
    );
    const inWindow = rx.on('/sustain').filter((r) => r.at >= sustainStart && r.at <= sustainEnd).length;
    const c = inWindow / SUSTAIN_S;
    // CPU per delivery while the pipeline is full (both processes; the emitters run in this one).
    const cpuMs = {
      temporal: ((cpuSeconds(temporal.pid!) - cpuAtStart.temporal) * 1000) / inWindow,
      service: ((cpuSeconds(service.child.pid!) - cpuAtStart.service) * 1000) / inWindow,
    };
    await drained(temporal.address);

    // Latency from acceptance (202) to receipt at steady rates: below capacity, and the target's 50/s.
    const paced: Array<{
      rate: number;
      p50: number;
      p90: number;
      p99: number;
      max: number;
      received: number;
      sent: number;
      cpu: { temporal: number; service: number };
    }> = [];
    let pacedIds: string[] = [];
    const eager = { starts: 0, activities: 0, sent: 0 };
    for (const rate of RATES) {
      const model = `paced${rate}`;
      await api('/api/action-triggers', {
        config_signals: [{ signal: 'post_save' }],
        content_types: [{ app_label: 'bench', model_name: model }],
        active: true,
        webhooks: [{ url: rx.url(`/${model}`), http_method: 'POST' }],
      });
      const acceptedAt = new Map<string, number>();
      const count = rate * PACED_S;
      const counters = await eagerCounters();
      const cpuBefore = { temporal: cpuSeconds(temporal.pid!), service: cpuSeconds(service.child.pid!) };
      const t0 = Date.now();
      const sends: Promise<void>[] = [];
      for (let i = 0; i < count; i++) {
        const due = t0 + (i * 1000) / rate;
        if (due > Date.now()) await sleep(due - Date.now());
        sends.push(
          api('/api/signals', { signal: 'post_save', app_label: 'bench', model_name: model, instance: { id: i } }).then(async (res) => {
            acceptedAt.set(((await res.json()) as { id: string }).id, Date.now());
          }),
        );
      }
      await Promise.all(sends);
      await rx.waitFor(() => rx.count(`/${model}`) >= count, 120_000).catch(() => undefined);
      const seconds = (Date.now() - t0) / 1000;
      const cpu = {
        temporal: (cpuSeconds(temporal.pid!) - cpuBefore.temporal) / seconds,
        service: (cpuSeconds(service.child.pid!) - cpuBefore.service) / seconds,
      };
      const [starts, activities] = await eagerCounters();
      Object.assign(eager, { starts: starts! - counters[0]!, activities: activities! - counters[1]!, sent: count });
      pacedIds = [...acceptedAt.keys()];
      const latencies = rx.on(`/${model}`).map((r) => r.at - (acceptedAt.get(String(r.headers['webhook-id']).split('.')[0]!) ?? r.at));
      paced.push({
        rate,
        p50: pct(latencies, 50),
        p90: pct(latencies, 90),
        p99: pct(latencies, 99),
        max: Math.max(...latencies),
        received: latencies.length,
        sent: count,
        cpu,
      });
      await drained(temporal.address);
    }

    // (d) Raw undici requests per second to the same receiver, 50 in flight.
    const agent = new Agent({ connections: 50 });
    let raw = 0;
    const rawEnd = Date.now() + SHORT_S * 1000;
    const rawStart = Date.now();
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        while (Date.now() < rawEnd) {
          const res = await request(rx.url('/raw'), {
            method: 'POST',
            body: '{"x":1}',
            headers: { 'content-type': 'application/json' },
            dispatcher: agent,
          });
          await res.body.dump();
          raw++;
        }
      }),
    );
    const d = raw / ((Date.now() - rawStart) / 1000);
    await agent.close();

    // Actions per one-webhook delivery: histories of dispatches of the last paced run, spread over it.
    const step = Math.max(1, Math.floor(pacedIds.length / HISTORIES));
    const after = await actionsOfWorkflows(
      temporal.address,
      pacedIds
        .filter((_, i) => i % step === 0)
        .slice(0, HISTORIES)
        .map((id) => `signal-${id}`),
    );
    const recorded = actionsOfRecorded(RECORDED_HISTORY);

    console.log(`\nDispatch benchmark (loopback; one Temporal dev server, in memory; service = API + worker in one process)\n`);
    console.log('| measure | value | ratio |');
    console.log('|---|---:|---:|');
    console.log(`| (a) floor: empty workflows completed/s | ${a.toFixed(0)} | 1.00 |`);
    console.log(`| (b) signals accepted/s (POST /api/signals, 50 connections) | ${b.toFixed(0)} | ${(b / a).toFixed(2)} × (a) |`);
    console.log(
      `| (c) sustained deliveries/s over ${SUSTAIN_S} s, one webhook per trigger | ${c.toFixed(0)} | ${(c / a).toFixed(2)} × (a) (target ≥ 0.50) |`,
    );
    console.log(`| (d) raw undici requests/s to the same receiver | ${d.toFixed(0)} | ${(c / d).toFixed(3)} = (c)/(d) |`);
    for (const p of paced) {
      console.log(
        `| accept→receipt at ${p.rate} signals/s: p50 / p99 ms (${p.received}/${p.sent} received; p90 ${p.p90}, max ${p.max}) | ${p.p50} / ${p.p99} | targets 25 / 100 at 50/s |`,
      );
    }
    console.log(
      `| CPU per delivery during (c): Temporal server / service, ms | ${cpuMs.temporal.toFixed(1)} / ${cpuMs.service.toFixed(1)} | |`,
    );
    for (const p of paced)
      console.log(
        `| CPU at ${p.rate} signals/s: Temporal server / service, cores | ${p.cpu.temporal.toFixed(2)} / ${p.cpu.service.toFixed(2)} | of 2 |`,
      );
    console.log(`\nTemporal actions per one-webhook delivery (counted from histories; src/temporal/history-actions.ts)\n`);
    console.log(
      `| kind | recorded: one dispatch in test/fixtures/histories | this run: mean of ${after.histories} dispatches at ${RATES.at(-1)}/s |`,
    );
    console.log('|---|---:|---:|');
    for (const row of actionRows([recorded, after.mean])) console.log(row);
    console.log(
      `\nEager dispatch at ${RATES.at(-1)}/s: ${after.eagerStarts}/${after.histories} histories started eagerly; ${
        temporal.metricsUrl
          ? `server counters: ${eager.starts} eager workflow starts and ${eager.activities} eager activities for ${eager.sent} signals`
          : "BENCH_TEMPORAL_METRICS=1 adds the server's counters of eager starts and activities"
      }.`,
    );
  } finally {
    await poster.close();
    await service.stop();
    await rx.close();
    await temporal.stop();
    rmSync(dir, { recursive: true, force: true });
  }
};
