import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { Agent, request } from 'undici';
import { silentLogger } from '../src/kernel/logger';
import { FIRST_ATTEMPT_CONCURRENCY } from '../src/kernel/limits';
import type { DispatchInput } from '../src/dispatch/types';
import { installSdkLogging } from '../src/worker';
import { Receiver, startReceiver } from '../test/support/receiver';
import { rssMb, startBenchTemporal, startService } from './server';
import { actionsOfWorkflows } from './temporal-costs';

const SIGNALS = Number(process.env.BENCH_SIGNALS ?? 1000);
const WEBHOOKS = Number(process.env.BENCH_WEBHOOKS ?? 50);
/**
 * Long enough for V8's memory reducer in the Temporal SDK's workflow thread, which shrinks that
 * heap only once its allocation-rate estimate has forgotten the burst: ~100 s idle here.
 */
const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 180);
const WARM_UP_SIGNALS = Math.min(20, SIGNALS);
const WARM_IDLE_S = Math.min(20, IDLE_S);
/** Histories sampled for the actions per delivery, and dispatches re-run the old way (one activity per action) for "before". */
const HISTORIES = Number(process.env.BENCH_HISTORIES ?? 20);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** V8's heap in use and the memory outside it (buffers, native), from the service's /metrics: tells a JS leak from the allocator's keeping. */
const heapMb = async (url: string) => {
  const text = await (await fetch(`${url}/metrics`)).text();
  const mb = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN) / 2 ** 20;
  return `heap used ${mb('nodejs_heap_size_used_bytes').toFixed(0)} of ${mb('nodejs_heap_size_total_bytes').toFixed(0)}, external ${mb('nodejs_external_memory_bytes').toFixed(0)}`;
};

interface Service {
  url: string;
  child: { pid?: number };
}
type Post = (path: string, body: unknown) => Promise<Response>;

/** The baseline: as many requests as one scenario delivers, straight from undici to the receiver, as concurrent as a worker sends. */
const rawUndici = async (rx: Receiver, total: number) => {
  const agent = new Agent({ keepAliveTimeout: 10_000 });
  let next = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: FIRST_ATTEMPT_CONCURRENCY }, async () => {
      while (next < total) {
        next += 1;
        const res = await request(rx.url('/raw'), {
          method: 'POST',
          body: '{"n":1}',
          headers: { 'content-type': 'application/json' },
          dispatcher: agent,
        });
        await res.body.dump();
      }
    }),
  );
  const perS = total / ((Date.now() - started) / 1000);
  await agent.close();
  return perS;
};

/** Sends SIGNALS signals of `model` in batches of 100 and waits until every expected delivery arrived; deliveries/s over the whole run. */
const runScenario = async (
  post: Post,
  rx: Receiver,
  service: Service,
  model: string,
  prefix: string,
  expected: number,
  peak: { mb: number },
  signals = SIGNALS,
) => {
  const ofScenario = () => rx.received.filter((r) => r.path.startsWith(prefix));
  const distinct = () => new Set(ofScenario().map((r) => r.headers['webhook-id'])).size;
  const workflowIds: string[] = [];
  const started = Date.now();
  for (let i = 0; i < signals; i += 100) {
    const batch = Array.from({ length: Math.min(100, signals - i) }, (_, j) => ({
      signal: 'post_save',
      app_label: 'bench',
      model_name: model,
      instance: { n: i + j },
    }));
    const res = await post('/api/signals', batch);
    if (res.status !== 202) throw new Error(`signals refused: ${res.status} ${await res.text()}`);
    workflowIds.push(...((await res.json()) as Array<{ workflow_id: string }>).map((a) => a.workflow_id));
  }
  while (distinct() < expected && Date.now() - started < 30 * 60_000) {
    peak.mb = Math.max(peak.mb, rssMb(service.child.pid!));
    await sleep(500);
  }
  const seconds = (Date.now() - started) / 1000;
  return { received: ofScenario().length, distinct: distinct(), perS: distinct() / seconds, seconds, workflowIds };
};

/**
 * "Before": dispatches re-run with the input of recorded ones but `attemptsAs: activities` (one
 * activity per action, as every dispatch of more than 10 actions ran before batches); their
 * histories counted the same way.
 */
const actionsBefore = async (address: string, workflowIds: string[]) => {
  const connection = await Connection.connect({ address });
  try {
    const client = new Client({ connection });
    const ids = await Promise.all(
      workflowIds.map(async (id, k) => {
        const started = (await client.workflow.getHandle(id).fetchHistory()).events?.[0]?.workflowExecutionStartedEventAttributes;
        const payload = started?.input?.payloads?.[0];
        const input = JSON.parse(Buffer.from(payload!.data!).toString('utf8')) as DispatchInput;
        const handle = await client.workflow.start('dispatchSignal', {
          taskQueue: started!.taskQueue!.name!,
          workflowId: `bench-before-${k}-${Date.now()}`,
          args: [{ ...input, attemptsAs: 'activities' }],
        });
        await handle.result();
        return handle.workflowId;
      }),
    );
    return await actionsOfWorkflows(address, ids);
  } finally {
    await connection.close();
  }
};

/**
 * `npm run bench -- fan-out`: SIGNALS signals × WEBHOOKS webhooks, no fault anywhere, in two
 * shapes: one trigger with WEBHOOKS webhooks, and WEBHOOKS triggers with one webhook each (many
 * customers watching one model). Baseline: raw undici to the same receiver in the same run.
 * Every delivery must be sent once (requests received = distinct webhook ids). Reports the
 * Temporal actions per delivery from sampled histories, against the same dispatches re-run with
 * one activity per action, and the service's RSS just started, idle after a warm-up, at its peak and
 * every 5 s of IDLE_S idle.
 */
export const benchFanOut = async () => {
  installSdkLogging(silentLogger, 'error');
  const dir = mkdtempSync(join(tmpdir(), 'at-bench-fanout-'));
  const temporal = await startBenchTemporal();
  const rx = await startReceiver();
  const configFile = join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify({ allow_private_targets: true }));
  // As `npm start` runs it (jemalloc where the machine has it, two malloc arenas otherwise, the heap cap): the memory figures are production's.
  const jemalloc = execFileSync('sh', [join(__dirname, '..', 'scripts', 'jemalloc-path.sh')], { encoding: 'utf8' }).trim();
  const service = await startService(
    {
      DATA_DIR: dir,
      TEMPORAL_ADDRESS: temporal.address,
      ACTION_TRIGGERS_CONFIG: configFile,
      MALLOC_ARENA_MAX: '2',
      ...(jemalloc ? { LD_PRELOAD: jemalloc, MALLOC_CONF: process.env.MALLOC_CONF ?? 'background_thread:true' } : {}),
    },
    'all',
    ['--max-old-space-size=1024'],
  );
  const post: Post = (path, body) =>
    fetch(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const trigger = (model: string, paths: string[]) =>
    post('/api/action-triggers', {
      config_signals: [{ signal: 'post_save' }],
      content_types: [{ app_label: 'bench', model_name: model }],
      active: true,
      webhooks: paths.map((p) => ({ url: rx.url(p), http_method: 'POST' })),
      payload: { n: '{{ instance.n }}' },
    });
  try {
    const expected = SIGNALS * WEBHOOKS;
    const raw = await rawUndici(rx, expected);
    await trigger(
      'order',
      Array.from({ length: WEBHOOKS }, (_, i) => `/one/w${i}`),
    );
    for (let i = 0; i < WEBHOOKS; i += 1) await trigger('invoice', [`/many/t${i}`]);
    const cold = rssMb(service.child.pid!);
    // Idle RSS is a worker's that has worked: a few signals first (code compiled, pools and
    // caches made once), then 20 s idle (less when IDLE_S is). The service just started is reported too.
    await trigger(
      'warm',
      Array.from({ length: WEBHOOKS }, (_, i) => `/warm/w${i}`),
    );
    await runScenario(post, rx, service, 'warm', '/warm/', WARM_UP_SIGNALS * WEBHOOKS, { mb: 0 }, WARM_UP_SIGNALS);
    await sleep(WARM_IDLE_S * 1000);
    const before = rssMb(service.child.pid!);
    const heapBefore = await heapMb(service.url);
    const peak = { mb: before };
    const one = await runScenario(post, rx, service, 'order', '/one/', expected, peak);
    const many = await runScenario(post, rx, service, 'invoice', '/many/', expected, peak);
    // RSS while idle, every 5 s: memory goes back after V8's and the allocator's own delays.
    const idleRss: number[] = [];
    for (let s = 5; s <= IDLE_S; s += 5) {
      await sleep(5000);
      idleRss.push(rssMb(service.child.pid!));
    }
    const idle = idleRss.at(-1) ?? rssMb(service.child.pid!);
    const heapAfter = await heapMb(service.url);
    const backAfter = idleRss.findIndex((mb) => mb <= before * 1.2);
    const sample = (ids: string[]) => ids.filter((_, i) => i % Math.max(1, Math.floor(ids.length / HISTORIES)) === 0).slice(0, HISTORIES);
    const after = await actionsOfWorkflows(temporal.address, sample(one.workflowIds));
    const afterMany = await actionsOfWorkflows(temporal.address, sample(many.workflowIds));
    const old = await actionsBefore(temporal.address, sample(one.workflowIds).slice(0, Math.max(1, Math.floor(HISTORIES / 4))));
    const per = (n: number) => (n / WEBHOOKS).toFixed(2);

    console.log(
      `\nFan-out benchmark (${SIGNALS} signals × ${WEBHOOKS} deliveries each, no faults; service = API + worker in one process${jemalloc ? ', with jemalloc' : ''}; loopback receiver)\n`,
    );
    console.log(`| measure | one trigger × ${WEBHOOKS} webhooks | ${WEBHOOKS} one-webhook triggers |\n|---|---:|---:|`);
    console.log(`| deliveries expected | ${expected} | ${expected} |`);
    console.log(`| requests received | ${one.received} | ${many.received} |`);
    console.log(`| duplicates (received − distinct webhook ids) | ${one.received - one.distinct} | ${many.received - many.distinct} |`);
    console.log(`| deliveries/s | ${one.perS.toFixed(0)} | ${many.perS.toFixed(0)} |`);
    console.log(
      `| ratio to raw undici (${raw.toFixed(0)} requests/s, ${FIRST_ATTEMPT_CONCURRENCY} at once, same receiver) | ${(one.perS / raw).toFixed(2)} | ${(many.perS / raw).toFixed(2)} |`,
    );
    console.log(
      `| Temporal actions per delivery (mean of ${after.histories} / ${afterMany.histories} histories) | ${per(after.mean.total)} | ${per(afterMany.mean.total)} |`,
    );
    console.log(`| of which activity attempts per delivery | ${per(after.mean.activities)} | ${per(afterMany.mean.activities)} |`);
    console.log(
      `| before (one activity per action; ${old.histories} dispatches re-run): actions / activity attempts per delivery | ${per(old.mean.total)} / ${per(old.mean.activities)} | |`,
    );
    console.log(
      `\n| service RSS MB | just started | idle before (after ${WARM_UP_SIGNALS} signals and ${WARM_IDLE_S} s) | peak | after ${IDLE_S} s idle | after / before | within 20 % of before after |\n|---|---:|---:|---:|---:|---:|---:|`,
    );
    console.log(
      `| API + worker | ${cold.toFixed(0)} | ${before.toFixed(0)} | ${peak.mb.toFixed(0)} | ${idle.toFixed(0)} | ${(idle / before).toFixed(2)} | ${backAfter < 0 ? `not within ${IDLE_S} s` : `${(backAfter + 1) * 5} s idle`} |`,
    );
    console.log(`\nRSS every 5 s of idle: ${idleRss.map((mb) => mb.toFixed(0)).join(', ')}`);
    console.log(`V8 (MB) before: ${heapBefore}; after idle: ${heapAfter}`);
  } finally {
    await service.stop();
    await rx.close();
    await temporal.stop();
    rmSync(dir, { recursive: true, force: true });
  }
};
