import { createHash } from 'node:crypto';
import request from 'supertest';
import { startHarnessForWorkerProcess } from '../../support/dispatch-harness';
import { Received, Receiver, startReceiver } from '../../support/receiver';
import { waitForDispatch } from '../../support/signals';
import { killProcess, startWorkerProcess, WorkerProcess } from '../../support/worker-process';
import { postTrigger, triggerBody } from '../../support/trigger-body';

/**
 * Deliveries in order per instance: a `per_instance` trigger's dispatches for one instance key
 * start one after another, in the order the service accepted their signals, however often and
 * slowly the receiver fails, and across a worker killed with SIGKILL. Real Temporal dev server,
 * a worker process of its own, a real receiver.
 */
let rx: Receiver;
let setup: Awaited<ReturnType<typeof startHarnessForWorkerProcess>>;
let h: Awaited<ReturnType<typeof startHarnessForWorkerProcess>>['h'];
let worker: WorkerProcess;

/** What the receiver answered 2xx, per instance key, in order of arrival: the sequence numbers of the signals. */
const delivered = new Map<string, number[]>();
const seenIds = new Set<string>();
/** `<path> <webhook id>` of every 2xx answer, in order. */
const okIds: string[] = [];
const bodyOf = (r: Received) => JSON.parse(r.body) as { key: string; n: number };
/** The same answer for the same request every time it comes: its webhook id decides. */
const dice = (r: Received, salt: string) =>
  createHash('sha256')
    .update(`${salt}${String(r.headers['webhook-id'])}`)
    .digest()[0]! / 256;

beforeAll(async () => {
  rx = await startReceiver();
  rx.respond((r) => {
    if (!r.path.startsWith('/ordered/')) return undefined;
    const { key, n } = bodyOf(r);
    const id = String(r.headers['webhook-id']);
    if (key === 'stuck') return { status: 503 };
    // 30 % of first attempts fail; answers wait 0–30 ms.
    const delayMs = Math.floor(dice(r, 'delay') * 30);
    if (!seenIds.has(id) && dice(r, 'fail') < 0.3) {
      seenIds.add(id);
      return { status: 500, delayMs };
    }
    seenIds.add(id);
    okIds.push(`${r.path} ${id}`);
    delivered.set(`${r.path} ${key}`, [...(delivered.get(`${r.path} ${key}`) ?? []), n]);
    return { status: 200, delayMs };
  });
  setup = await startHarnessForWorkerProcess({
    retry: { initial_interval_secs: 0.2, backoff_coefficient: 2, max_interval_secs: 1, max_attempts: 40 },
  });
  h = setup.h;
  worker = await startWorkerProcess(setup.workerEnv);
}, 120_000);

afterAll(async () => {
  if (worker) await killProcess(worker, 'SIGTERM');
  await h?.close();
  await rx?.close();
});

const trigger = (model: string, path: string, ordering?: string) =>
  postTrigger<{ id: string; ordering: string }>(
    h.app,
    triggerBody({
      app: 'ord',
      model,
      webhooks: [{ url: rx.url(path), http_method: 'POST', timeout_secs: 5 }],
      payload: { key: '{{ instance.id }}', n: '{{ instance.n }}' },
      ...(ordering ? { ordering } : {}),
    }),
  );

/** Signals n = 0… for each key, interleaved, in requests of `per` signals (array order is acceptance order). */
const send = async (model: string, keys: string[], perKey: number, per = 200) => {
  const all = Array.from({ length: keys.length * perKey }, (_, i) => ({
    signal: 'post_save',
    app_label: 'ord',
    model_name: model,
    instance: { id: keys[i % keys.length], n: Math.floor(i / keys.length) },
  }));
  const ids: string[] = [];
  for (let i = 0; i < all.length; i += per) {
    const res = await request(h.app)
      .post('/api/signals')
      .send(all.slice(i, i + per))
      .expect(202);
    ids.push(...(res.body as Array<{ id: string }>).map((a) => a.id));
  }
  return ids;
};

const successes = (path: string, key: string) => delivered.get(`${path} ${key}`) ?? [];

/** A sequence with each run of repeats kept once: a delivery re-sent after a kill arrives right after its first copy, never later. */
const withoutRepeats = (ns: number[]) => ns.filter((n, i) => i === 0 || ns[i - 1] !== n);

test('2,000 signals over 20 instances, 30 % of first attempts failing, answers delayed at random, the worker killed with SIGKILL half-way: each instance receives its signals in acceptance order, each once', async () => {
  const ordered = await trigger('order', '/ordered/a', 'per_instance');
  expect(ordered.ordering).toBe('per_instance');
  const keys = Array.from({ length: 20 }, (_, i) => `o${i}`);
  const total = () => keys.reduce((sum, k) => sum + successes('/ordered/a', k).length, 0);
  const t0 = Date.now();
  await send('order', keys, 100);
  await rx.waitFor(() => total() >= 1000, 300_000);
  await killProcess(worker, 'SIGKILL');
  const atKill = total();
  // Until the kill, every signal was delivered once: no webhook id answered 200 twice.
  const okAtKill = okIds.filter((id) => id.startsWith('/ordered/a '));
  expect(new Set(okAtKill).size).toBe(okAtKill.length);
  worker = await startWorkerProcess(setup.workerEnv);
  await rx.waitFor(() => keys.every((k) => new Set(successes('/ordered/a', k)).size >= 100), 300_000);
  for (const k of keys) expect(withoutRepeats(successes('/ordered/a', k))).toEqual(Array.from({ length: 100 }, (_, n) => n));
  // Sent again only if in flight at the kill: at most one per instance (the next waits for it).
  const duplicates = total() - 2000;
  console.log(
    `ordering: ${atKill} of 2000 delivered before the kill; all in ${((Date.now() - t0) / 1000).toFixed(0)} s; ${duplicates} delivered twice`,
  );
  expect(duplicates).toBeLessThanOrEqual(keys.length);
  // Retries happened (the receiver failed first attempts).
  expect(rx.received.filter((r) => r.path === '/ordered/a').length).toBeGreaterThan(2400);
}, 660_000);

test('a receiver that keeps failing for one instance holds only that instance: the others complete, its later signals wait', async () => {
  await trigger('stuckish', '/ordered/b', 'per_instance');
  const keys = ['stuck', ...Array.from({ length: 19 }, (_, i) => `s${i}`)];
  const ids = await send('stuckish', keys, 5);
  await rx.waitFor(() => keys.slice(1).every((k) => successes('/ordered/b', k).length >= 5), 60_000);
  for (const k of keys.slice(1)) expect(successes('/ordered/b', k)).toEqual([0, 1, 2, 3, 4]);
  // The stuck instance's first signal is still retrying; its second waits for it.
  const first = await waitForDispatch(h.app, ids[0]!, () => true);
  expect(first.actions[0]).toMatchObject({ state: 'retrying' });
  const second = await waitForDispatch(h.app, ids[keys.length]!, () => true);
  expect(second).toMatchObject({ state: 'running', triggers: [{ instance_key: 'stuck' }], actions: [{ state: 'waiting', attempts: 0 }] });
  expect(rx.received.filter((r) => r.path === '/ordered/b' && bodyOf(r).key === 'stuck').every((r) => bodyOf(r).n === 0)).toBe(true);
  // A redelivery is sent at once, outside the order (it is not queued in the order, so it never waits for a turn); a dispatch still running cannot be redelivered.
  const s0 = await waitForDispatch(h.app, ids[1]!);
  const before = successes('/ordered/b', 's0').length;
  await request(h.app)
    .post(`/api/signals/${ids[1]!}/redeliver`)
    .send({ mode: 'as_dispatched', delivery_ids: [s0.actions[0].delivery_id] })
    .expect(202);
  await rx.waitFor(() => successes('/ordered/b', 's0').length > before, 15_000);
  expect(successes('/ordered/b', 's0').at(-1)).toBe(0);
  expect(
    (await request(h.app).post(`/api/signals/${ids[keys.length]!}/redeliver`).send({ mode: 'as_dispatched' }).expect(409)).body.detail,
  ).toMatch(/still running/);
}, 120_000);

test('an unordered trigger on the same signals does not wait for the ordered one', async () => {
  await trigger('both', '/ordered/c', 'per_instance');
  await trigger('both', '/unordered/c');
  const keys = ['stuck', 'u1'];
  await send('both', keys, 10);
  // Every unordered delivery arrives although the ordered trigger's `stuck` instance is held at its first signal.
  await rx.waitFor(() => rx.received.filter((r) => r.path === '/unordered/c').length >= 20, 30_000);
  expect(successes('/ordered/c', 'stuck')).toEqual([]);
  await rx.waitFor(() => successes('/ordered/c', 'u1').length >= 10, 60_000);
  expect(successes('/ordered/c', 'u1')).toEqual(Array.from({ length: 10 }, (_, n) => n));
}, 120_000);

test('a signal without instance_key, instance.pk or instance.id is delivered at once, with a warning on its trigger', async () => {
  await trigger('keyless', '/ordered/d', 'per_instance');
  const res = await request(h.app)
    .post('/api/signals')
    .send({ signal: 'post_save', app_label: 'ord', model_name: 'keyless', instance: { n: 1 } })
    .expect(202);
  const done = await waitForDispatch(h.app, res.body.id as string);
  expect(done.triggers[0].unordered).toMatch(/no instance_key, instance.pk or instance.id/);
  expect(done.actions[0]).toMatchObject({ state: 'delivered' });
}, 60_000);

test('an instance_key that is empty, longer than 256 characters or not text is refused, naming the field', async () => {
  const base = { signal: 'post_save', app_label: 'ord', model_name: 'keyless', instance: { id: 1 } };
  for (const instance_key of ['', 'k'.repeat(257), 7, null, ['a']]) {
    const res = await request(h.app)
      .post('/api/signals')
      .send([base, { ...base, instance_key }])
      .expect(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ path: '[1].instance_key' })]);
  }
  await request(h.app)
    .post('/api/signals')
    .send({ ...base, instance_key: 'k'.repeat(256) })
    .expect(202);
});
