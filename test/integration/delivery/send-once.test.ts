import request from 'supertest';
import { startHarnessForWorkerProcess } from '../../support/dispatch-harness';
import { startReceiver } from '../../support/receiver';
import { killProcess, startWorkerProcess } from '../../support/worker-process';
import { postTrigger, triggerBody } from '../../support/trigger-body';

/**
 * Without a fault, each delivery is sent once; and an action already delivered is never sent
 * again when the workflow task that ran alongside it is lost (a local first attempt's result
 * only becomes durable with its workflow task; the delivered ledger keeps it from being sent twice).
 */
const SIGNALS = 60;
const WEBHOOKS = 50;

const harnessWithWorkerProcess = async () => {
  const { h, workerEnv } = await startHarnessForWorkerProcess();
  return { h, env: workerEnv };
};

test(`${SIGNALS} signals × a trigger with ${WEBHOOKS} webhooks: every delivery sent exactly once`, async () => {
  const rx = await startReceiver();
  const { h, env } = await harnessWithWorkerProcess();
  const worker = await startWorkerProcess(env);
  try {
    await postTrigger(
      h.app,
      triggerBody({ webhooks: Array.from({ length: WEBHOOKS }, (_, i) => ({ url: rx.url(`/w${i}`), http_method: 'POST' })) }),
    );
    const signals = Array.from({ length: SIGNALS }, (_, i) => ({
      signal: 'post_save',
      app_label: 'shop',
      model_name: 'order',
      instance: { n: i },
    }));
    await request(h.app).post('/api/signals').send(signals).expect(202);
    const expected = SIGNALS * WEBHOOKS;
    const distinct = () => new Set(rx.received.map((r) => r.headers['webhook-id'])).size;
    await rx.waitFor(() => distinct() >= expected, 150_000);
    await new Promise((r) => setTimeout(r, 2000)); // late duplicates would arrive now
    expect(distinct()).toBe(expected);
    expect(rx.received.length).toBe(expected);
  } finally {
    await killProcess(worker, 'SIGKILL');
    await h.close();
    await rx.close();
  }
}, 200_000);

test('a delivered action is not sent again when the worker dies while another action of the dispatch still runs', async () => {
  const rx = await startReceiver();
  rx.script('/slow', [{ delayMs: 8000 }]);
  const { h, env } = await harnessWithWorkerProcess();
  let worker = await startWorkerProcess(env);
  try {
    await postTrigger(
      h.app,
      triggerBody({
        webhooks: [
          { url: rx.url('/fast'), http_method: 'POST' },
          { url: rx.url('/slow'), http_method: 'POST', timeout_secs: 10 },
        ],
      }),
    );
    await request(h.app)
      .post('/api/signals')
      .send({ signal: 'post_save', app_label: 'shop', model_name: 'order', instance: { id: 1 } })
      .expect(202);
    await rx.waitFor(() => rx.on('/fast').length === 1 && rx.on('/slow').length === 1, 30_000);
    // Let the fast delivery's completion reach the server, then kill the worker mid-slow-attempt.
    await new Promise((r) => setTimeout(r, 1000));
    await killProcess(worker, 'SIGKILL');
    worker = await startWorkerProcess(env);
    await rx.waitFor(() => rx.on('/slow').length >= 2, 60_000);
    await new Promise((r) => setTimeout(r, 1000));
    expect(rx.on('/fast')).toHaveLength(1);
  } finally {
    await killProcess(worker, 'SIGKILL');
    await h.close();
    await rx.close();
  }
}, 120_000);
