import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ServerProcess, startServerProcess, stopServerProcess } from '../../support/server-process';
import { ownStalls } from '../../support/own-stalls';
import { freePort } from '../../support/free-port';
import { tempDir } from '../../support/test-app';
import { triggerBody } from '../../support/trigger-body';

/**
 * A signal whose object has 12,000 keys against legal conditions that compare it with objects:
 * matching used to list the signal's keys on every comparison (7–9 s per signal, the API's
 * event loop held throughout). A real API process, probed on /healthz every 20 ms.
 */
const PROBE_EVERY_MS = 20;
const PROBE_LATE_MS = 100;
/**
 * A batch of 700 KB spends tens of ms apiece parsing, checking and storing its body, whatever
 * the conditions: a probe may wait for two such steps. A freeze of matching would be seconds.
 */
const PROBE_LATE_IN_BATCH_MS = 250;

let dir: string;
let server: ServerProcess;
const run = `${process.pid}-${Date.now()}`;

beforeAll(async () => {
  dir = tempDir('at-costly-');
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ allow_private_targets: true }));
  server = await startServerProcess(
    {
      DATA_DIR: join(dir, 'data'),
      ACTION_TRIGGERS_CONFIG: join(dir, 'config.json'),
      // Intake needs no Temporal: with none there, the signals stay queued in the store and
      // their status is read from it.
      TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}`,
    },
    60_000,
    ['--role=api'],
  );
}, 90_000);

afterAll(async () => {
  if (server) await stopServerProcess(server, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const post = async (path: string, body: unknown) => {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as unknown };
};

const createTrigger = async (model: string, condition: unknown) => {
  const res = await post(
    '/api/action-triggers',
    triggerBody({ model, condition, webhooks: [{ url: 'http://127.0.0.1:9/hook', http_method: 'POST' }] }),
  );
  expect(res.status).toBe(201);
  return res.body as { id: string };
};

const empties = (n: number, v: unknown) => Array.from({ length: n }, () => v);
/** The attack's condition: 45 × `$nin` of 100 empty objects, 14.7 KB of JSON (legal: 45 comparisons). */
const NIN_CONDITION = { $and: empties(45, { 'instance.o': { $nin: empties(100, {}) } }) };
const WIDE = Object.fromEntries(Array.from({ length: 12_000 }, (_, i) => [`k${i}`, 0]));

const signal = (model: string, id: string, instance: Record<string, unknown>, previous?: Record<string, unknown>) => ({
  id: `${run}-${id}`,
  signal: 'post_save',
  app_label: 'shop',
  model_name: model,
  instance,
  ...(previous ? { previous } : {}),
});

/** Probes /healthz until stopped; each probe's time less this process's own stalls. */
const probing = () => {
  const stalls = ownStalls();
  const times: number[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const at = Date.now();
      await fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(10_000) }).then((r) => r.arrayBuffer());
      const end = Date.now();
      times.push(end - at - stalls.within(at, end));
      await new Promise((r) => setTimeout(r, PROBE_EVERY_MS));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    stalls.stop();
    return times;
  };
};

/**
 * How late a probe may be: PROBE_LATE_MS, or three times the slowest of a quiet second's probes
 * on a machine busy with other work (the attack froze the API for seconds).
 */
const lateAfterQuietSecond = async (limit: number) => {
  const stop = probing();
  await new Promise((r) => setTimeout(r, 1000));
  return Math.max(limit, 3 * Math.max(...(await stop())));
};

/** How long a POST takes, less this process's own stalls. */
const timed = async (path: string, body: unknown) => {
  const stalls = ownStalls();
  const at = Date.now();
  const res = await post(path, body);
  const end = Date.now();
  stalls.stop();
  return { ...res, ms: end - at - stalls.within(at, end) };
};

test('a 120 KB signal against a 14.7 KB condition of object comparisons is matched in the normal intake time; /healthz answers within 100 ms (or 3× the slowest probe of a quiet second) throughout', async () => {
  expect(JSON.stringify(NIN_CONDITION).length).toBeGreaterThan(14_500);
  await createTrigger('wide', NIN_CONDITION);
  const hostile = signal('wide', 'hostile', { o: WIDE });
  expect(JSON.stringify(hostile).length).toBeGreaterThan(120_000);
  // The normal intake time: a signal of the same size the trigger does not watch.
  const plain = await timed('/api/signals', signal('other', 'plain', { o: WIDE }));
  expect(plain.status).toBe(202);

  const late = await lateAfterQuietSecond(PROBE_LATE_MS);
  const stop = probing();
  const answer = await timed('/api/signals', hostile);
  await new Promise((r) => setTimeout(r, 200));
  const probes = await stop();

  expect(answer.status).toBe(202);
  expect(answer.body).toMatchObject({ state: 'queued' });
  expect(answer.ms).toBeLessThan(Math.max(500, 5 * plain.ms));
  expect(probes.length).toBeGreaterThan(3);
  expect(Math.max(...probes)).toBeLessThan(late);
}, 60_000);

test('a batch of such signals against three triggers, one condition past its budget: /healthz answers throughout, the costly one is named', async () => {
  for (let i = 0; i < 2; i++) await createTrigger('batch', NIN_CONDITION);
  // 64 × $changed over the 12,000-key object: more steps than a condition may take.
  const costly = await createTrigger('batch', { $or: empties(64, { 'instance.o': { $changed: true } }) });
  const batch = Array.from({ length: 3 }, (_, i) => signal('batch', `batch-${i}`, { o: WIDE }, { o: WIDE }));
  expect(JSON.stringify(batch).length).toBeLessThan(1024 * 1024);

  const late = await lateAfterQuietSecond(PROBE_LATE_IN_BATCH_MS);
  const stop = probing();
  const answer = await timed('/api/signals', batch);
  await new Promise((r) => setTimeout(r, 200));
  const probes = await stop();

  expect(answer).toMatchObject({ status: 202 });
  expect((answer.body as { state: string }[]).map((a) => a.state)).toEqual(['queued', 'queued', 'queued']);
  expect(Math.max(...probes)).toBeLessThan(late);

  const status = (await (await fetch(`${server.url}/api/signals/${batch[0]!.id}`)).json()) as {
    not_matched: { trigger_id: string; reason: string; clause: string; detail: string }[];
  };
  expect(status.not_matched).toEqual([
    expect.objectContaining({
      trigger_id: costly.id,
      reason: 'condition_false',
      clause: expect.stringMatching(/^condition\.\$or\[\d+\]\.instance\.o$/),
      detail: expect.stringMatching(/^is too costly to evaluate/),
    }),
  ]);

  // The dry run takes the same path, with the same budget.
  const dry = await timed(`/api/action-triggers/${costly.id}/test`, { signal: 'post_save', instance: { o: WIDE }, previous: { o: WIDE } });
  expect(dry.status).toBe(200);
  expect(dry.body).toMatchObject({ condition: { held: false, detail: expect.stringMatching(/^is too costly to evaluate/) } });
}, 60_000);
