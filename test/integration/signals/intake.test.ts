import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { silentLogger } from '../../../src/kernel/logger';
import { findTemporalCli } from '../../../src/temporal/cli';
import { DevServer, startDevServer } from '../../../src/temporal/dev-server';
import { freePort } from '../../support/free-port';
import { startReceiver, Receiver } from '../../support/receiver';
import { TEST_RETRY } from '../../support/dispatch-harness';
import { ServerProcess, startServerProcess, stopServerProcess } from '../../support/server-process';
import { killProcess, startWorkerProcess } from '../../support/worker-process';
import { testServers } from '../../support/servers';
import { tempDir } from '../../support/test-app';
import { ChildProcess } from 'node:child_process';
import { Client, Connection } from '@temporalio/client';
import { triggerBody } from '../../support/trigger-body';

/**
 * Durable intake on real processes: a private Temporal dev server (so it can be stopped without
 * stalling other files), `--role=api` processes and a `--role=worker` process on one data dir,
 * and a real receiver. A signal is accepted once stored; the relay hands it to Temporal.
 */
const OUTAGE_S = Number(process.env.INTAKE_OUTAGE_S ?? 60);
const RATE = 50;

let dir: string;
let rx: Receiver;
let temporalPort: number;
let temporal: DevServer;
let env: Record<string, string>;
let apis: ServerProcess[] = [];
let worker: ChildProcess;
let seq = 0;

const startTemporal = async () => {
  temporal = await startDevServer({
    cliPath: findTemporalCli(undefined)!,
    dbFile: join(dir, 'temporal.sqlite'),
    port: temporalPort,
    uiPort: undefined,
    namespace: 'default',
    log: silentLogger,
  });
};
const startApi = async () => {
  const api = await startServerProcess(env, 60_000, ['--role=api']);
  apis.push(api);
  return api;
};
const post = (api: ServerProcess, path: string, body: unknown) =>
  fetch(`${api.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const get = async (api: ServerProcess, path: string) => (await fetch(`${api.url}${path}`)).json() as Promise<Record<string, unknown>>;
/** `/readyz` once its dispatch info (refreshed in the background, seconds to learn that Temporal is away) matches. */
const readyWith = async (api: ServerProcess, dispatch: Record<string, unknown>) => {
  for (let deadline = Date.now() + 30_000; ;) {
    const ready = await get(api, '/readyz');
    const shown = ready.dispatch as Record<string, unknown>;
    if (Object.entries(dispatch).every(([k, v]) => shown[k] === v) || Date.now() > deadline) return ready;
    await new Promise((r) => setTimeout(r, 200));
  }
};
const signal = (model: string, id: string) => ({ id, signal: 'post_save', app_label: 'intake', model_name: model, instance: { n: id } });

/** Distinct webhook ids received on `path`, and how many requests came in all. */
const arrivals = (path: string) => {
  const requests = rx.on(path);
  return { distinct: new Set(requests.map((r) => r.headers['webhook-id'])).size, requests: requests.length };
};

beforeAll(async () => {
  dir = tempDir('at-intake-');
  rx = await startReceiver();
  temporalPort = await freePort();
  await startTemporal();
  const configFile = join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify({ retry: TEST_RETRY, allow_private_targets: true }));
  env = {
    DATA_DIR: dir,
    ACTION_TRIGGERS_CONFIG: configFile,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: 'intake',
    WORKFLOW_BUNDLE_PATH: testServers().workflowBundlePath,
  };
  await startApi();
  worker = await startWorkerProcess(env);
  for (const model of ['once', 'pair', 'outage', 'killed']) {
    const webhooks = [{ url: rx.url(`/${model}`), http_method: 'POST' }];
    const res = await post(
      apis[0]!,
      '/api/action-triggers',
      triggerBody({ app: 'intake', model, webhooks, payload: { n: '{{ instance.n }}' } }),
    );
    expect(res.status).toBe(201);
  }
}, 120_000);

afterAll(async () => {
  await Promise.all(apis.map((a) => stopServerProcess(a, 'SIGKILL')));
  if (worker) await killProcess(worker);
  await temporal?.stop();
  await rx?.close();
});

test('the same signal id, again after its dispatch completed and after an API restart: one dispatch', async () => {
  const first = await post(apis[0]!, '/api/signals', signal('once', 'once-1'));
  expect(first.status).toBe(202);
  expect(await first.json()).toMatchObject({ id: 'once-1', duplicate: false, state: 'queued' });
  await rx.waitFor(() => rx.on('/once').length === 1);
  const again = await post(apis[0]!, '/api/signals', signal('once', 'once-1'));
  expect(await again.json()).toMatchObject({ duplicate: true });
  await stopServerProcess(apis.pop()!, 'SIGKILL');
  const restarted = await startApi();
  const afterRestart = await post(restarted, '/api/signals', [signal('once', 'once-1'), signal('once', 'once-2')]);
  expect(await afterRestart.json()).toMatchObject([
    { id: 'once-1', duplicate: true },
    { id: 'once-2', duplicate: false },
  ]);
  await rx.waitFor(() => rx.on('/once').length >= 2);
  await new Promise((r) => setTimeout(r, 1000));
  expect(
    rx
      .on('/once')
      .map((r) => JSON.parse(r.body).n)
      .sort(),
  ).toEqual(['once-1', 'once-2']);
}, 120_000);

test('two API processes on one store: one relay at a time; no signal started twice or skipped, also when the relay holder is killed', async () => {
  const second = await startApi();
  const both = apis.slice(-2);
  const holders = async () =>
    (await Promise.all(both.map((a) => get(a, '/readyz')))).map((r) => (r.dispatch as Record<string, unknown>).relay);
  const send = async (targets: ServerProcess[], count: number) => {
    const ids = Array.from({ length: count }, () => `pair-${++seq}`);
    await Promise.all(
      ids.map(async (id, i) => expect((await post(targets[i % targets.length]!, '/api/signals', signal('pair', id))).status).toBe(202)),
    );
    return ids;
  };
  const sent = await send(both, 300);
  await rx.waitFor(() => arrivals('/pair').distinct === sent.length, 120_000);
  expect((await holders()).filter((h) => h === 'this process')).toHaveLength(1);
  // Kill whichever holds the lease; the other takes over once it expires, and relays what it accepts.
  const holder = both[(await holders()).indexOf('this process')]!;
  await stopServerProcess(holder, 'SIGKILL');
  apis = apis.filter((a) => a !== holder);
  const survivor = holder === second ? both[0]! : second;
  const more = await send([survivor], 100);
  await rx.waitFor(() => arrivals('/pair').distinct === sent.length + more.length, 120_000);
  await new Promise((r) => setTimeout(r, 1000));
  expect(arrivals('/pair')).toEqual({ distinct: 400, requests: 400 });
  expect((await readyWith(survivor, { relay: 'this process', backlog: 0 })).dispatch).toMatchObject({ relay: 'this process', backlog: 0 });
}, 240_000);

test('1,000 signals for a content type no trigger watches start no workflow; each says why by id', async () => {
  const api = apis[apis.length - 1]!;
  const ids = Array.from({ length: 1000 }, (_, i) => `nobody-${i}`);
  for (let i = 0; i < ids.length; i += 250) {
    const batch = ids.slice(i, i + 250).map((id) => ({ ...signal('nobody', id) }));
    const res = await post(api, '/api/signals', batch);
    expect(res.status).toBe(202);
    expect(((await res.json()) as Array<{ state: string }>).every((a) => a.state === 'unmatched')).toBe(true);
  }
  for (const id of [ids[0]!, ids[499]!, ids[999]!]) {
    expect(await get(api, `/api/signals/${id}`)).toMatchObject({
      state: 'unmatched',
      reason: 'no trigger watches intake.nobody',
      not_matched: [],
      actions: [],
    });
  }
  await new Promise((r) => setTimeout(r, 2000)); // what the relay would start, it would have by now
  const connection = await Connection.connect({ address: temporal.address });
  try {
    const client = new Client({ connection });
    // The same count finds the dispatches of a watched content type, so zero is not the query failing.
    expect((await client.workflow.count('ContentType = "intake.once"')).count).toBe(2);
    expect((await client.workflow.count('ContentType = "intake.nobody"')).count).toBe(0);
  } finally {
    await connection.close();
  }
}, 120_000);

/** Sends RATE signals/s for `seconds` (ids `<model>-<n>`), retrying any that could not connect; returns their ids and latencies. */
const emitAtRate = async (model: string, seconds: number, target: () => ServerProcess, during?: (elapsedS: number) => Promise<void>) => {
  const ids: string[] = [];
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  const pending: Promise<void>[] = [];
  const t0 = Date.now();
  let lastSecond = -1;
  for (let i = 0; i < seconds * RATE; i++) {
    const due = t0 + (i * 1000) / RATE;
    if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
    const id = `${model}-${i}`;
    ids.push(id);
    pending.push(
      (async () => {
        for (;;) {
          const started = Date.now();
          try {
            const res = await post(target(), '/api/signals', signal(model, id));
            await res.arrayBuffer();
            statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
            latencies.push(Date.now() - started);
            return;
          } catch {
            await new Promise((r) => setTimeout(r, 50)); // the API process is restarting: not an answer, try again
          }
        }
      })(),
    );
    const second = Math.floor((Date.now() - t0) / 1000);
    if (during && second !== lastSecond) {
      lastSecond = second;
      await during(second);
    }
  }
  await Promise.all(pending);
  latencies.sort((a, b) => a - b);
  return {
    ids,
    statuses: Object.fromEntries(statuses),
    p50: latencies[Math.floor(latencies.length * 0.5)]!,
    p99: latencies[Math.floor(latencies.length * 0.99)]!,
  };
};

test(
  `Temporal stopped for ${OUTAGE_S} s under ${RATE} signals/s: every signal accepted and queued; restarted, every webhook arrives once and the backlog drains`,
  async () => {
    const api = apis[apis.length - 1]!;
    await temporal.stop();
    const sent = await emitAtRate('outage', OUTAGE_S, () => api);
    console.log(`accepted while Temporal was down: ${JSON.stringify(sent.statuses)}, p50 ${sent.p50} ms, p99 ${sent.p99} ms`);
    expect(sent.statuses).toEqual({ 202: OUTAGE_S * RATE });
    // Far from the 10 s and 503 of old; generous for a shared CI machine. `npm run bench -- intake` measures it.
    expect(sent.p99).toBeLessThan(2000);
    expect(await get(api, `/api/signals/${sent.ids[0]}`)).toMatchObject({
      state: 'queued',
      actions: [expect.objectContaining({ state: 'pending' })],
    });
    expect(await readyWith(api, { temporal: 'unreachable' })).toMatchObject({
      status: 'ready',
      dispatch: { temporal: 'unreachable', backlog: OUTAGE_S * RATE },
    });
    expect(rx.on('/outage')).toHaveLength(0);
    await startTemporal();
    await rx.waitFor(() => arrivals('/outage').distinct === sent.ids.length, 480_000);
    await new Promise((r) => setTimeout(r, 1000));
    expect(arrivals('/outage')).toEqual({ distinct: sent.ids.length, requests: sent.ids.length });
    expect(new Set(rx.on('/outage').map((r) => JSON.parse(r.body).n))).toEqual(new Set(sent.ids));
    expect((await readyWith(api, { temporal: 'reachable', backlog: 0 })).dispatch).toMatchObject({ temporal: 'reachable', backlog: 0 });
    expect(await get(api, `/api/signals/${sent.ids[0]}`)).toMatchObject({
      state: 'completed',
      actions: [expect.objectContaining({ state: 'delivered' })],
    });
  },
  OUTAGE_S * 1000 + 600_000,
);

test('the same with the API process killed (SIGKILL) in the middle of the outage and restarted: none lost', async () => {
  const seconds = Math.max(10, Math.round(OUTAGE_S / 3));
  let api = apis[apis.length - 1]!;
  await temporal.stop();
  const sent = await emitAtRate(
    'killed',
    seconds,
    () => api,
    async (second) => {
      if (second !== Math.floor(seconds / 2)) return;
      await stopServerProcess(api, 'SIGKILL');
      apis = apis.filter((a) => a !== api);
      api = await startApi();
    },
  );
  expect(sent.statuses).toEqual({ 202: seconds * RATE });
  await startTemporal();
  await rx.waitFor(() => arrivals('/killed').distinct === sent.ids.length, 300_000);
  expect(new Set(rx.on('/killed').map((r) => JSON.parse(r.body).n))).toEqual(new Set(sent.ids));
}, 420_000);
