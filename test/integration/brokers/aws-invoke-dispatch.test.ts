import { createServer, Server } from 'node:http';
import request from 'supertest';
import { startDispatchHarness } from '../../support/dispatch-harness';
import { BROKER_TARGETS, BrokerTarget } from '../../support/brokers/targets';
import type { LambdaRecorder } from '../../support/lambda-recorder';
import { waitForDispatch } from '../../support/signals';
import { postTrigger, triggerBody } from '../../support/trigger-body';

/**
 * End to end on moto: which failures of a Lambda invoke and an EventBridge put are retried.
 * Throttling (429), a 5xx and a function error are retried with the same delivery id until the
 * function takes the event; a call Lambda refuses (a function that does not exist) fails at its
 * first attempt, as does a put to a bus that does not exist; a PutEvents entry the bus refuses
 * counts as failed though the call answered 200 (moto refuses no entry our envelope can make, so a
 * loopback server answers as EventBridge does for a partly failed put).
 */
let h: Awaited<ReturnType<typeof startDispatchHarness>>;
let lambda: BrokerTarget & { recorder: LambdaRecorder };
let events: BrokerTarget;
/** Answers PutEvents with its entry failed: the codes in `entryCodes`, one per call, in order. */
let partial: Server;
const entryCodes: string[] = [];
let puts = 0;

beforeAll(async () => {
  lambda = (await BROKER_TARGETS.aws_lambda!()) as typeof lambda;
  events = await BROKER_TARGETS.aws_eventbridge!();
  partial = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      puts++;
      const code = entryCodes.shift();
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(
        JSON.stringify(
          code ? { FailedEntryCount: 1, Entries: [{ ErrorCode: code }] } : { FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] },
        ),
      );
    });
  });
  await new Promise<void>((r) => partial.listen(0, '127.0.0.1', r));
  const partialUrl = `http://127.0.0.1:${(partial.address() as { port: number }).port}`;
  h = await startDispatchHarness({
    brokers: {
      fn: lambda.broker,
      bus: events.broker,
      missing_bus: { ...events.broker, params: { ...events.broker.params, event_bus_name: 'no-such-bus' } },
      partial_bus: { ...events.broker, conn_details: { ...events.broker.conn_details, endpoint_url: partialUrl } },
    },
  });
}, 90_000);
afterAll(async () => {
  await h?.close();
  await lambda?.close();
  await events?.close();
  partial?.close();
});

type Status = { state: string; actions: Array<{ state: string; attempts: number; last_error?: string; error_type?: string }> };

const dispatchTo = async (queues: Array<Record<string, unknown>>, payload: unknown = { order: '{{ instance.id }}' }) => {
  const model = `m${Math.random().toString(36).slice(2, 10)}`;
  const t = await postTrigger(h.app, triggerBody({ model, msg_broker_queues: queues, payload }));
  const s = (
    await request(h.app)
      .post('/api/signals')
      .send({ signal: 'post_save', app_label: 'shop', model_name: model, instance: { id: 42 } })
      .expect(202)
  ).body as { id: string };
  const status = (await waitForDispatch(h.app, s.id, (x) => x.state === 'completed', 60_000)) as Status;
  return { t, s, status };
};

test('throttling, a 5xx and a function error are retried with the same delivery id; the function gets the event once', async () => {
  lambda.recorder.answerNext('throttled', 'server-error', 'function-error');
  const { t, s, status } = await dispatchTo([{ name: 'fn' }]);
  expect(status.actions[0]).toMatchObject({ state: 'delivered', attempts: 4 });
  const got = await lambda.read(1);
  expect(got).toEqual([{ body: '{"order":42}', deliveryId: `${s.id}.${t.id}.q0`, contentType: 'application/json' }]);
}, 90_000);

test('a call Lambda refuses (no such function) fails at its first attempt and says why', async () => {
  lambda.recorder.answerNext('not-found');
  const { status } = await dispatchTo([{ name: 'fn' }]);
  expect(status.actions[0]).toMatchObject({ state: 'failed', attempts: 1 });
  expect(status.actions[0]!.last_error).toBe('publish to fn failed: the broker answered HTTP 404 (ResourceNotFoundException)');
}, 90_000);

test('a put to a bus that does not exist fails at its first attempt; the other action of the trigger is delivered', async () => {
  const { status } = await dispatchTo([{ name: 'missing_bus' }, { name: 'fn' }]);
  const [bus, fn] = status.actions;
  expect(fn).toMatchObject({ state: 'delivered' });
  expect(bus).toMatchObject({ state: 'failed', attempts: 1 });
  expect(bus!.last_error).toBe('publish to missing_bus failed: the broker answered HTTP 400 (ResourceNotFoundException)');
}, 90_000);

test('a failed entry in a 200 answer is a failed attempt: a throttled entry is retried, a refused one is not', async () => {
  puts = 0;
  entryCodes.push('ThrottlingException');
  const delivered = await dispatchTo([{ name: 'partial_bus' }]);
  expect(delivered.status.actions[0]).toMatchObject({ state: 'delivered', attempts: 2 });
  expect(puts).toBe(2);
  entryCodes.push('InvalidArgument');
  const refused = await dispatchTo([{ name: 'partial_bus' }]);
  expect(refused.status.actions[0]).toMatchObject({
    state: 'failed',
    attempts: 1,
    last_error: 'publish to partial_bus failed: the event bus refused the event (InvalidArgument)',
  });
}, 90_000);

test('an event the bus takes arrives once on the rule target, in the envelope with the delivery id', async () => {
  const { t, s, status } = await dispatchTo([{ name: 'bus' }]);
  expect(status.actions[0]).toMatchObject({ state: 'delivered', attempts: 1 });
  expect(await events.read(1)).toEqual([{ body: '{"order":42}', deliveryId: `${s.id}.${t.id}.q0`, contentType: 'application/json' }]);
}, 90_000);
