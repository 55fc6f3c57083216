import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'amqplib';
import request from 'supertest';
import { startDispatchHarness } from '../../support/dispatch-harness';
import { freePort } from '../../support/free-port';
import { amqpUrlOf, startRabbit, stopRabbit } from '../../support/rabbitmq';
import { waitForDispatch } from '../../support/signals';
import { tempDir } from '../../support/test-app';
import { postTrigger, triggerBody } from '../../support/trigger-body';

const SIGNALS = 100;

/** Its own RabbitMQ node, so stopping it disturbs no other test file. */
test('RabbitMQ killed and restarted in the middle of a run: every message arrives', async () => {
  const dir = tempDir();
  const node = {
    dir: join(dir, 'rabbit'),
    port: await freePort(),
    distPort: await freePort(),
    name: `at-restart-${process.pid}@localhost`,
  };
  const url = amqpUrlOf(node);
  let pgid = await startRabbit(node);
  const queue = `jobs-${Date.now()}`;
  const h = await startDispatchHarness({
    brokers: { jobs: { broker_type: 'rabbitmq', conn_details: { url }, params: { queue } } },
    retry: { initial_interval_secs: 0.2, backoff_coefficient: 2, max_interval_secs: 2, max_attempts: 40 },
  });
  try {
    await postTrigger(
      h.app,
      triggerBody({ model: 'job', msg_broker_queues: [{ name: 'jobs', timeout_secs: 2 }], payload: { job: '{{ instance.n }}' } }),
    );
    const emit = async (from: number, count: number) =>
      (
        await request(h.app)
          .post('/api/signals')
          .send(
            Array.from({ length: count }, (_, i) => ({
              signal: 'post_save',
              app_label: 'shop',
              model_name: 'job',
              instance: { n: from + i },
            })),
          )
          .expect(202)
      ).body.map((x: { id: string }) => x.id) as string[];
    const ids = await emit(0, SIGNALS / 2);
    await stopRabbit(pgid, url);
    ids.push(...(await emit(SIGNALS / 2, SIGNALS / 2)));
    await new Promise((r) => setTimeout(r, 1000));
    pgid = await startRabbit(node);
    for (const id of ids) {
      const status = await waitForDispatch(h.app, id, (s) => s.state === 'completed', 90_000);
      expect(status.actions[0].state).toBe('delivered');
    }
    const conn = await connect(url);
    const ch = await conn.createChannel();
    const seen = new Set<string>();
    for (let msg = await ch.get(queue, { noAck: true }); msg; msg = await ch.get(queue, { noAck: true }))
      seen.add(String(msg.properties.messageId));
    await conn.close();
    expect(seen.size).toBe(SIGNALS);
    expect(ids.every((id) => [...seen].some((m) => m.startsWith(`${id}.`)))).toBe(true);
  } finally {
    await h.close();
    await stopRabbit(pgid, url);
    rmSync(dir, { recursive: true, force: true });
  }
}, 240_000);
