import request from 'supertest';
import { startDispatchHarness } from '../../support/dispatch-harness';
import { BROKER_TARGETS, BrokerTarget } from '../../support/brokers/targets';
import { waitForDispatch } from '../../support/signals';
import { postTrigger, triggerBody } from '../../support/trigger-body';

/**
 * End to end through Temporal: one trigger whose RabbitMQ settings the broker refuses (an
 * exchange that does not exist) beside a good trigger on the same broker, 30 signals that each
 * dispatch both. Every one of the good trigger's messages is delivered at its first attempt,
 * and the bad trigger's error never shows on the good trigger's actions.
 */
let target: BrokerTarget;
let h: Awaited<ReturnType<typeof startDispatchHarness>>;
const EXCHANGE = `no-such-exchange-${Date.now()}`;

beforeAll(async () => {
  target = await BROKER_TARGETS.rabbitmq!();
  h = await startDispatchHarness({
    brokers: {
      good: target.broker,
      bad: { ...target.broker, params: { exchange: EXCHANGE, routing_key: 'x' } },
    },
  });
}, 90_000);
afterAll(async () => {
  await h?.close();
  await target?.close();
});

const trigger = (queue: string) =>
  postTrigger(h.app, triggerBody({ msg_broker_queues: [{ name: queue }], payload: { order: '{{ instance.id }}' } }));

interface Action {
  trigger_id: string;
  state: string;
  attempts: number;
  last_error?: string;
  delivery_id: string;
}

test("a trigger with a refused exchange fails only its own actions: all 30 of the other trigger's messages are delivered at once", async () => {
  const [bad, good] = [await trigger('bad'), await trigger('good')];
  const signals = await Promise.all(
    Array.from(
      { length: 30 },
      async (_, i) =>
        (
          await request(h.app)
            .post('/api/signals')
            .send({ signal: 'post_save', app_label: 'shop', model_name: 'order', instance: { id: i } })
            .expect(202)
        ).body as { id: string },
    ),
  );
  const actions: Action[] = [];
  for (const s of signals) {
    const status = (await waitForDispatch(h.app, s.id, (x) => x.state === 'completed', 90_000)) as unknown as { actions: Action[] };
    actions.push(...status.actions);
  }
  const goodActions = actions.filter((a) => a.trigger_id === good.id);
  expect(goodActions.map((a) => [a.state, a.attempts, a.last_error ?? ''])).toEqual(signals.map(() => ['delivered', 1, '']));
  const arrived = await target.read(30, 30_000);
  expect(new Set(arrived.map((m) => m.deliveryId))).toEqual(new Set(goodActions.map((a) => a.delivery_id)));
  // The bad trigger's actions did fail, with the broker's reply code in our words (its text, which quotes the exchange, is not passed on).
  const badActions = actions.filter((a) => a.trigger_id === bad.id);
  expect(badActions).toEqual(
    signals.map(() => expect.objectContaining({ state: 'failed', last_error: expect.stringContaining('404 not found') })),
  );
  expect(JSON.stringify(badActions)).not.toContain(EXCHANGE);
}, 180_000);
