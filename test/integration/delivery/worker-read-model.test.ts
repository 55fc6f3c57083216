import request from 'supertest';
import { retrySettingsOf } from '../../../src/config';
import { startHarnessForWorkerProcess } from '../../support/dispatch-harness';
import { startReceiver } from '../../support/receiver';
import { killProcess, startWorkerProcess } from '../../support/worker-process';
import { waitForDispatch } from '../../support/signals';
import { postTrigger, triggerBody } from '../../support/trigger-body';

const OPENED = 'opening the read model: a dispatch started without a plan is planned here';

test('a worker-only process opens no read model for planned dispatches, and opens it for the first dispatch started without a plan', async () => {
  const rx = await startReceiver();
  const { h, workerEnv } = await startHarnessForWorkerProcess();
  const worker = await startWorkerProcess(workerEnv);
  try {
    await postTrigger(h.app, triggerBody({ model: 'lazy', webhooks: [{ url: rx.url('/lazy'), http_method: 'POST' }] }));
    const planned = { signal: 'post_save', app_label: 'shop', model_name: 'lazy', instance: { id: 1 } };
    const accepted = (await request(h.app).post('/api/signals').send(planned).expect(202)).body;
    await waitForDispatch(h.app, accepted.id);
    expect(rx.on('/lazy')).toHaveLength(1);
    expect(worker.output()).not.toContain(OPENED);

    const id = `unplanned-${Date.now()}`;
    const signal = { id, ...planned, occurred_at: new Date().toISOString() };
    await h.client.workflow.start('dispatchSignal', {
      taskQueue: h.taskQueue,
      workflowId: `signal-${id}`,
      args: [{ signal, retry: retrySettingsOf(h.config) }],
    });
    const done = await waitForDispatch(h.app, id);
    expect(done.actions[0]).toMatchObject({ state: 'delivered', attempts: 1 });
    expect(rx.on('/lazy')).toHaveLength(2);
    expect(worker.output().split(OPENED)).toHaveLength(2);
  } finally {
    await killProcess(worker);
    await h.close();
    await rx.close();
  }
}, 120_000);
