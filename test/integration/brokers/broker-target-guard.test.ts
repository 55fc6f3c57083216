import { createServer, Server, Socket } from 'node:net';
import request from 'supertest';
import { BROKER_TARGETS, BrokerTarget, testedType, TESTED_TYPES } from '../../support/brokers/targets';
import { startDispatchHarness, TEST_RETRY } from '../../support/dispatch-harness';
import { waitForDispatch } from '../../support/signals';
import { triggerBody } from '../../support/trigger-body';

/**
 * What a key with `triggers:write` can make the worker reach through a broker, on a server with
 * allow_private_targets off: no broker setting that says where messages go by default; where the
 * config lets a trigger set one, no host that is not public (written literally, or rendered from
 * the signal), and never the host a queue URL names. Every broker type's keys, against a TCP
 * listener on loopback that counts who dials it.
 */

/** Every type with a private host spelling to try (test/support/brokers/target.ts). */
const TYPES = TESTED_TYPES.filter((t) => t.privateSpelling !== undefined).map((t) => t.type);

/** A listener standing in for an internal service: it counts connections and answers nothing. */
let listener: Server;
let dialled = 0;
let port = 0;
const targets: Record<string, BrokerTarget> = {};
let h: Awaited<ReturnType<typeof startDispatchHarness>>;

/** A broker type's key a trigger would point elsewhere, as a template over the instance and as a literal private host. */
const POINTED = (p: number, type: string) => {
  const { address, privateSpelling } = testedType(type);
  return { key: address.key, templated: address.at('{{ instance.host }}', p), literal: privateSpelling!(p) };
};

beforeAll(async () => {
  listener = createServer((s: Socket) => {
    dialled += 1;
    s.destroy();
  });
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
  port = (listener.address() as { port: number }).port;
  for (const type of TYPES) targets[type] = await BROKER_TARGETS[type]!();
  const brokers: Record<string, unknown> = {};
  for (const type of TYPES) {
    // The operator's broker, on loopback: its own hosts are the operator's choice.
    brokers[type] = targets[type]!.broker;
    brokers[`${type}-open`] = { ...targets[type]!.broker, trigger_overrides: { conn_details: [POINTED(port, type).key] } };
  }
  brokers['sqs-by-url'] = { ...targets.aws_sqs!.broker, trigger_overrides: { parameters: ['queue_url'] } };
  brokers['rabbitmq-templated'] = {
    broker_type: 'rabbitmq',
    conn_details: { url: POINTED(port, 'rabbitmq').templated },
    params: { queue: 'q' },
  };
  h = await startDispatchHarness({ allow_private_targets: false, retry: { ...TEST_RETRY, max_attempts: 2 }, brokers });
}, 120_000);
afterAll(async () => {
  await h?.close();
  for (const t of Object.values(targets)) await t.close();
  listener?.close();
});

/** Each test's triggers listen to a model of their own, so that one test's signals dispatch only its triggers. */
const model = () => (expect.getState().currentTestName ?? 'x').replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
const write = (queue: Record<string, unknown>) =>
  request(h.app)
    .post('/api/action-triggers')
    .send(triggerBody({ model: model(), msg_broker_queues: [queue], payload: { id: '{{ instance.id }}' } }));
const emit = async (instance: Record<string, unknown>) =>
  (await request(h.app).post('/api/signals').send({ signal: 'post_save', app_label: 'shop', model_name: model(), instance }).expect(202))
    .body.id as string;

type Action = { state: string; attempts: number; last_error?: string };
const dispatchOf = async (instance: Record<string, unknown>) =>
  (await waitForDispatch(h.app, await emit(instance), undefined, 60_000)) as unknown as { actions: Action[] };

test.each(TYPES)('%s: by default a trigger may set no setting that says where messages go', async (type) => {
  const { key, literal } = POINTED(port, type);
  const answer = await write({ name: type, conn_details: { [key]: literal } }).expect(400);
  expect(answer.text).toContain(`msg_broker_queues[0].conn_details.${key}`);
  expect(answer.text).toContain(`broker ${type} does not let triggers set conn_details.${key}`);
});

test('by default a trigger may not set an SQS queue URL or an SNS topic ARN (the attack: a queue URL at a private port, or the metadata address)', async () => {
  for (const queue_url of [`http://127.0.0.1:${port}/1/q`, 'http://169.254.169.254/latest/meta-data/']) {
    const answer = await write({ name: 'aws_sqs', parameters: { queue_url } }).expect(400);
    expect(answer.text).toContain('msg_broker_queues[0].parameters.queue_url');
  }
  const sns = await write({ name: 'aws_sns', parameters: { topic_arn: 'arn:aws:sns:eu-west-1:999999999999:theirs' } }).expect(400);
  expect(sns.text).toContain('msg_broker_queues[0].parameters.topic_arn');
});

test.each(TYPES)('%s: where the config lets a trigger set the address, a literal private host is refused when written', async (type) => {
  const { key, literal } = POINTED(port, type);
  const answer = await write({ name: `${type}-open`, conn_details: { [key]: literal } }).expect(400);
  expect(answer.text).toContain(`msg_broker_queues[0].conn_details.${key}`);
  expect(answer.text).toContain('must not be a loopback or private address or localhost (allow_private_targets is off)');
});

test.each(TYPES)(
  '%s: a host rendered from the signal is checked before the worker connects: refused, nothing dialled',
  async (type) => {
    const { key, templated } = POINTED(port, type);
    await write({ name: `${type}-open`, conn_details: { [key]: templated } }).expect(201);
    const before = dialled;
    const { actions } = await dispatchOf({ id: 1, host: '127.0.0.1' });
    expect(actions[0]).toMatchObject({
      state: 'failed',
      attempts: 1,
      last_error: 'broker target refused: not a public address (allow_private_targets is off)',
    });
    expect(dialled).toBe(before);
  },
  90_000,
);

test("a config value templated over the instance is the signal's choice, not the operator's: checked the same way", async () => {
  await write({ name: 'rabbitmq-templated' }).expect(201);
  const before = dialled;
  const { actions } = await dispatchOf({ id: 2, host: '127.0.0.1' });
  expect(actions[0]).toMatchObject({
    state: 'failed',
    last_error: 'broker target refused: not a public address (allow_private_targets is off)',
  });
  expect(dialled).toBe(before);
}, 90_000);

test("the operator's own loopback broker still delivers with allow_private_targets off", async () => {
  await write({ name: 'rabbitmq' }).expect(201);
  const { actions } = await dispatchOf({ id: 3 });
  expect(actions.map((a) => a.state)).toContain('delivered');
  expect((await targets.rabbitmq!.read(1)).length).toBeGreaterThanOrEqual(1);
}, 90_000);

test('an SQS queue URL a trigger may set names the queue, never where the request goes: the configured endpoint gets it', async () => {
  const real = new URL((targets.aws_sqs!.broker.params as { queue_url: string }).queue_url);
  const elsewhere = `http://127.0.0.1:${port}${real.pathname}`;
  await write({ name: 'sqs-by-url', parameters: { queue_url: elsewhere } }).expect(201);
  const before = dialled;
  const { actions } = await dispatchOf({ id: 4 });
  expect(dialled).toBe(before);
  // The local SQS finds the queue by the name at the end of the URL.
  expect(actions[0]).toMatchObject({ state: 'delivered' });
  expect((await targets.aws_sqs!.read(1)).map((m) => JSON.parse(m.body) as unknown)).toEqual([{ id: 4 }]);
}, 90_000);
