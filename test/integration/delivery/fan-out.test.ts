import request from 'supertest';
import { FIRST_ATTEMPT_CONCURRENCY } from '../../../src/kernel/limits';
import { startHarnessForWorkerProcess } from '../../support/dispatch-harness';
import { Receiver, startReceiver } from '../../support/receiver';
import { waitForDispatch } from '../../support/signals';
import { postTrigger, triggerBody } from '../../support/trigger-body';
import { killProcess, startWorkerProcess, WorkerProcess } from '../../support/worker-process';

/**
 * Fan-out: a signal with 50 webhooks sends its first attempts in one batch activity, on a worker
 * process of its own (so it can be killed), the shared Temporal dev server and a real receiver.
 */
let rx: Receiver;
let setup: Awaited<ReturnType<typeof startHarnessForWorkerProcess>>;
let worker: WorkerProcess;

beforeAll(async () => {
  rx = await startReceiver();
  setup = await startHarnessForWorkerProcess();
  worker = await startWorkerProcess(setup.workerEnv);
}, 120_000);

afterAll(async () => {
  if (worker) await killProcess(worker, 'SIGTERM');
  await setup?.h.close();
  await rx?.close();
});

const trigger = (model: string, webhooks: Array<Record<string, unknown>>) =>
  postTrigger(setup.h.app, triggerBody({ app: 'fan', model, webhooks }));

const webhookIds = (prefix: string) => rx.received.filter((r) => r.path.startsWith(prefix)).map((r) => String(r.headers['webhook-id']));

test('one of 50 webhooks hangs until its time-out: the other 49 are delivered and shown delivered before it times out, then it is retried', async () => {
  const TIMEOUT_S = 6;
  rx.script('/hang/0', [{ delayMs: (TIMEOUT_S + 3) * 1000 }]);
  await trigger(
    'hang',
    Array.from({ length: 50 }, (_, i) => ({ url: rx.url(`/hang/${i}`), http_method: 'POST', timeout_secs: TIMEOUT_S })),
  );
  const started = Date.now();
  const accepted = (
    await request(setup.h.app)
      .post('/api/signals')
      .send({ signal: 'post_save', app_label: 'fan', model_name: 'hang', instance: { id: 1 } })
      .expect(202)
  ).body as { id: string };
  const shown = await waitForDispatch(
    setup.h.app,
    accepted.id,
    (s) => (s as { actions?: Array<{ state: string }> }).actions?.filter((a) => a.state === 'delivered').length === 49,
    20_000,
  );
  const shownAfterMs = Date.now() - started;
  expect(shownAfterMs).toBeLessThan(TIMEOUT_S * 1000);
  expect(shown.state).toBe('running');
  expect(shown.actions[0]).toMatchObject({ state: 'pending' });
  expect(new Set(webhookIds('/hang/')).size).toBe(50); // the hung one arrived too; it is its answer that hangs
  const done = await waitForDispatch(setup.h.app, accepted.id, undefined, 60_000);
  expect(done.actions[0]).toMatchObject({ state: 'delivered', attempts: 2 });
  expect(done.actions.slice(1).every((a: { state: string; attempts: number }) => a.state === 'delivered' && a.attempts === 1)).toBe(true);
  expect(rx.on('/hang/0')).toHaveLength(2);
}, 90_000);

test('the worker killed with SIGKILL in the middle of 200 signals × 50 webhooks: every delivery arrives; only sends in flight at the kill arrive twice', async () => {
  const SIGNALS = 200;
  const WEBHOOKS = 50;
  const slow = await startReceiver({ delayMs: 20 });
  try {
    await trigger(
      'crash',
      Array.from({ length: WEBHOOKS }, (_, i) => ({ url: slow.url(`/crash/${i}`), http_method: 'POST', timeout_secs: 5 })),
    );
    for (let batch = 0; batch < SIGNALS / 50; batch++) {
      const signals = Array.from({ length: 50 }, (_, i) => ({
        signal: 'post_save',
        app_label: 'fan',
        model_name: 'crash',
        instance: { n: batch * 50 + i },
      }));
      await request(setup.h.app).post('/api/signals').send(signals).expect(202);
    }
    await slow.waitFor(() => slow.received.length >= 2000, 120_000);
    await killProcess(worker, 'SIGKILL');
    const killedAt = Date.now();
    const beforeKill = slow.received.length;
    expect(beforeKill).toBeLessThan(SIGNALS * WEBHOOKS);
    worker = await startWorkerProcess(setup.workerEnv);
    // Counted as requests arrive (the predicate runs on each of 10,000: a full scan each would starve the receiver).
    const distinct = new Set<string>();
    let seen = 0;
    const distinctNow = () => {
      for (; seen < slow.received.length; seen++) distinct.add(String(slow.received[seen]!.headers['webhook-id']));
      return distinct.size;
    };
    await slow
      .waitFor(() => distinctNow() >= SIGNALS * WEBHOOKS, 180_000)
      .catch(async (e) => {
        const list = (await request(setup.h.app).get('/api/signals?limit=100')).body as { items?: Array<{ id: string; state: string }> };
        const stuck = list.items?.find((x) => x.state !== 'completed');
        if (!stuck) throw new Error(`${e}\n${JSON.stringify(list).slice(0, 2000)}\n${worker.output().slice(-6000)}`);
        const status = stuck && (await request(setup.h.app).get(`/api/signals/${stuck.id}`)).body;
        const wf = stuck && (await setup.h.client.workflow.getHandle(`signal-${stuck.id}`).describe());
        throw new Error(
          `${e}\n${JSON.stringify(status).slice(0, 1500)}\n${JSON.stringify(wf?.raw.pendingActivities).slice(0, 3000)}\n${worker.output().slice(-6000)}`,
        );
      });
    await new Promise((r) => setTimeout(r, 1000));
    const firstAt = new Map<string, number>();
    const duplicated = new Set<string>();
    for (const r of slow.received) {
      const id = String(r.headers['webhook-id']);
      if (firstAt.has(id)) duplicated.add(id);
      else firstAt.set(id, r.at);
    }
    const duplicates = slow.received.length - firstAt.size;
    console.log(
      `fan-out worker kill: ${beforeKill} of ${SIGNALS * WEBHOOKS} received before the kill; ${duplicates} sent twice (bound: ${FIRST_ATTEMPT_CONCURRENCY}, the sends one worker has in flight)`,
    );
    expect(firstAt.size).toBe(SIGNALS * WEBHOOKS);
    // A delivery is sent again only when its first send was in flight at the kill: received before it (1 s for the receiver's clock and transit).
    expect([...duplicated].filter((id) => firstAt.get(id)! > killedAt + 1000)).toEqual([]);
    expect(duplicates).toBeLessThanOrEqual(FIRST_ATTEMPT_CONCURRENCY);
  } finally {
    await slow.close();
  }
}, 300_000);
