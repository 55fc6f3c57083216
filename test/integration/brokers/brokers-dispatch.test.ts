import request from 'supertest';
import { startDispatchHarness } from '../../support/dispatch-harness';
import { BROKER_TARGETS, BrokerTarget } from '../../support/brokers/targets';
import { waitForDispatch } from '../../support/signals';
import { postTrigger, triggerBody } from '../../support/trigger-body';

/**
 * End to end, per broker type: an active trigger with one queue entry per type; one
 * signal puts exactly one message on each, read by a real consumer; an inactive trigger or
 * another model puts nothing on any.
 */
const TYPES = Object.keys(BROKER_TARGETS);
let h: Awaited<ReturnType<typeof startDispatchHarness>>;
const targets: Record<string, BrokerTarget> = {};

beforeAll(async () => {
  for (const type of TYPES) targets[type] = await BROKER_TARGETS[type]!();
  h = await startDispatchHarness({ brokers: Object.fromEntries(TYPES.map((type) => [type, targets[type]!.broker])) });
}, 90_000);
afterAll(async () => {
  await h?.close();
  await Promise.all(Object.values(targets).map((t) => t.close()));
});

const trigger = (over: Record<string, unknown>) =>
  postTrigger(
    h.app,
    triggerBody({
      msg_broker_queues: TYPES.map((name) => ({ name })),
      payload: { order: '{{ instance.id }}', note: 'ü {{ instance.note }}' },
      ...over,
    }),
  );

test('one signal: exactly one message on each of the six brokers, with the rendered body, delivery id and content type', async () => {
  const t = await trigger({});
  await trigger({ active: false });
  await trigger({ model: 'refund' });
  const s = (
    await request(h.app)
      .post('/api/signals')
      .send({ signal: 'post_save', app_label: 'shop', model_name: 'order', instance: { id: 7, note: 'x' } })
      .expect(202)
  ).body as { id: string };
  const status = await waitForDispatch(h.app, s.id, (x) => x.state === 'completed', 60_000);
  expect(status.actions.map((a: { state: string }) => a.state)).toEqual(TYPES.map(() => 'delivered'));
  for (const [i, type] of TYPES.entries()) {
    const got = await targets[type]!.read(1);
    await new Promise((r) => setTimeout(r, type === 'kafka' ? 1000 : 200)); // a second message would show now
    expect([type, await targets[type]!.read(1)]).toEqual([
      type,
      [{ body: '{"order":7,"note":"ü x"}', deliveryId: `${s.id}.${t.id}.q${i}`, contentType: 'application/json' }],
    ]);
    expect(got).toHaveLength(1);
  }
}, 120_000);

test('bad connection details: the action retries and records a clear error, naming no secret', async () => {
  const { broker } = targets.aws_sqs!;
  const h2 = await startDispatchHarness({
    brokers: { sqs: { ...broker, conn_details: { ...broker.conn_details, endpoint_url: 'http://127.0.0.1:9' } } },
  });
  try {
    await postTrigger(h2.app, triggerBody({ msg_broker_queues: [{ name: 'sqs', timeout_secs: 1 }] }));
    const s = (
      await request(h2.app)
        .post('/api/signals')
        .send({ signal: 'post_save', app_label: 'shop', model_name: 'order', instance: { id: 1 } })
        .expect(202)
    ).body as { id: string };
    const status = await waitForDispatch(
      h2.app,
      s.id,
      (x) => x.state === 'completed' || ((x as { actions?: Array<{ attempts: number }> }).actions?.[0]?.attempts ?? 0) >= 2,
      60_000,
    );
    const action = status.actions[0] as { state: string; last_error: string };
    expect(['retrying', 'failed']).toContain(action.state);
    expect(action.last_error).toMatch(/^publish to sqs failed: /);
    expect(action.last_error).not.toContain('test-secret');
  } finally {
    await h2.close();
  }
}, 90_000);
