import request from 'supertest';
import { startHarnessForWorkerProcess } from '../../support/dispatch-harness';
import { startReceiver } from '../../support/receiver';
import { killProcess, startWorkerProcess } from '../../support/worker-process';
import { postTrigger, triggerBody } from '../../support/trigger-body';

const SIGNALS = 200;

test('the worker killed with SIGKILL while 200 signals are in flight, then restarted: every delivery arrives', async () => {
  const rx = await startReceiver({ delayMs: 40 });
  const { h, workerEnv } = await startHarnessForWorkerProcess();
  let worker = await startWorkerProcess(workerEnv);
  try {
    await postTrigger(h.app, triggerBody({ webhooks: [{ url: rx.url('/crash'), http_method: 'POST', timeout_secs: 2 }] }));
    const accepted: string[] = [];
    for (let batch = 0; batch < SIGNALS / 50; batch++) {
      const signals = Array.from({ length: 50 }, (_, i) => ({
        signal: 'post_save',
        app_label: 'shop',
        model_name: 'order',
        instance: { n: batch * 50 + i },
      }));
      const res = await request(h.app).post('/api/signals').send(signals).expect(202);
      accepted.push(...res.body.map((x: { id: string }) => x.id));
    }
    await rx.waitFor(() => rx.received.length >= 20, 60_000);
    await killProcess(worker, 'SIGKILL');
    const beforeRestart = new Set(rx.received.map((r) => r.headers['webhook-id'])).size;
    expect(beforeRestart).toBeLessThan(SIGNALS);
    worker = await startWorkerProcess(workerEnv);
    const distinct = () => new Set(rx.received.map((r) => r.headers['webhook-id'])).size;
    await rx.waitFor(() => distinct() >= SIGNALS, 120_000);
    const delivered = new Set(rx.received.map((r) => String(r.headers['webhook-id']).split('.')[0]));
    expect(accepted.every((id) => delivered.has(id))).toBe(true);
    expect(distinct()).toBe(SIGNALS);
  } finally {
    await killProcess(worker, 'SIGTERM');
    await h.close();
    await rx.close();
  }
}, 240_000);
