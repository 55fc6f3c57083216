import request from 'supertest';
import { startHarnessForWorkerProcess } from '../../support/dispatch-harness';
import { BROKER_TARGETS } from '../../support/brokers/targets';
import { killProcess, startWorkerProcess } from '../../support/worker-process';
import { postTrigger, triggerBody } from '../../support/trigger-body';

const SIGNALS = 200;

test('the worker killed with SIGKILL while 200 signals with a Kafka and an SQS action each are in flight: every message arrives', async () => {
  const [kafka, sqs] = [await BROKER_TARGETS.kafka!(), await BROKER_TARGETS.aws_sqs!()];
  const brokers = { kafka: kafka.broker, sqs: sqs.broker };
  const { h, workerEnv } = await startHarnessForWorkerProcess({ brokers });
  let worker = await startWorkerProcess(workerEnv);
  try {
    await postTrigger(
      h.app,
      triggerBody({
        msg_broker_queues: [
          { name: 'kafka', timeout_secs: 3 },
          { name: 'sqs', timeout_secs: 3 },
        ],
      }),
    );
    const signals = Array.from({ length: SIGNALS }, (_, i) => ({
      signal: 'post_save',
      app_label: 'shop',
      model_name: 'order',
      instance: { n: i },
    }));
    await request(h.app).post('/api/signals').send(signals).expect(202);
    await kafka.read(10, 60_000);
    await killProcess(worker, 'SIGKILL');
    const before = new Set((await sqs.read(0, 0)).map((m) => m.deliveryId)).size;
    worker = await startWorkerProcess(workerEnv);
    // Duplicates may arrive (at least once): wait for every distinct delivery id.
    const distinct = async (t: typeof kafka) => {
      const deadline = Date.now() + 150_000;
      for (;;) {
        const ids = new Set((await t.read(0, 0)).map((m) => m.deliveryId));
        if (ids.size >= SIGNALS || Date.now() > deadline) return ids.size;
        await new Promise((r) => setTimeout(r, 500));
      }
    };
    expect(await distinct(kafka)).toBe(SIGNALS);
    expect(await distinct(sqs)).toBe(SIGNALS);
    expect(before).toBeLessThan(SIGNALS);
  } finally {
    await killProcess(worker, 'SIGTERM');
    await h.close();
    await kafka.close();
    await sqs.close();
  }
}, 300_000);
