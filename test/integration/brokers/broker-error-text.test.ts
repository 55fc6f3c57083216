import { createServer, Server } from 'node:http';
import { Redis } from 'ioredis';
import request from 'supertest';
import { BROKER_TARGETS, BrokerTarget } from '../../support/brokers/targets';
import { startDispatchHarness, TEST_RETRY } from '../../support/dispatch-harness';
import { waitForDispatch } from '../../support/signals';
import { postTrigger, triggerBody } from '../../support/trigger-body';
import { testServers } from '../../support/servers';

/**
 * A broker's error text never reaches `last_error` (read by any key with `signals:read`): it may
 * quote a rendered value, or be the answer of whatever a target pointed at. The reason names
 * the broker's code in our words. Real servers refuse real publishes; for SQS, an endpoint that
 * answers like a hostile service would.
 */

/** What the hostile endpoint puts in its error answer. */
const PEER_TEXT = 'internal-service-says-PEER-TEXT';

let hostile: Server;
let hostileUrl = '';
const targets: BrokerTarget[] = [];
let redis: Redis;
const WRONG_TYPE_KEY = `plain-string-${Date.now()}`;
const EXCHANGE = `no-such-exchange-${Date.now()}`;
let h: Awaited<ReturnType<typeof startDispatchHarness>>;

beforeAll(async () => {
  hostile = createServer((req, res) => {
    req.resume();
    res.writeHead(400, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-query-error': `${PEER_TEXT};Sender` });
    res.end(JSON.stringify({ __type: `com.amazonaws.sqs#${PEER_TEXT}`, message: `${PEER_TEXT}: root:x:0:0:root:/root:/bin/bash` }));
  });
  await new Promise<void>((r) => hostile.listen(0, '127.0.0.1', r));
  hostileUrl = `http://127.0.0.1:${(hostile.address() as { port: number }).port}`;
  redis = new Redis(testServers().brokers.redis.url);
  await redis.set(WRONG_TYPE_KEY, 'not a stream');
  const [rabbit, sqs, sns, pubsub, kafka] = await Promise.all(
    ['rabbitmq', 'aws_sqs', 'aws_sns', 'gcp_pubsub', 'kafka'].map((t) => BROKER_TARGETS[t]!()),
  );
  targets.push(rabbit!, sqs!, sns!, pubsub!, kafka!);
  h = await startDispatchHarness({
    retry: { ...TEST_RETRY, max_attempts: 2 },
    brokers: {
      rabbitmq: { ...rabbit!.broker, params: { exchange: EXCHANGE, routing_key: 'x' } },
      redis: { broker_type: 'redis', conn_details: { url: testServers().brokers.redis.url }, params: { stream: WRONG_TYPE_KEY } },
      aws_sqs: { ...sqs!.broker, conn_details: { ...sqs!.broker.conn_details, endpoint_url: hostileUrl } },
      aws_sns: { ...sns!.broker, params: { topic_arn: `${sns!.broker.params.topic_arn}-deleted` } },
      kafka: { ...kafka!.broker, params: { topic: 'no topic may hold spaces' } },
      gcp_pubsub: { ...pubsub!.broker, conn_details: { ...pubsub!.broker.conn_details, topic: 'no-such-topic' } },
    },
  });
}, 120_000);
afterAll(async () => {
  await h?.close();
  for (const t of targets) await t.close();
  redis?.disconnect();
  hostile?.close();
});

test.each([
  ['rabbitmq', 'the broker refused it: 404 not found (the exchange or queue does not exist)', [EXCHANGE, 'NOT_FOUND - ']],
  ['redis', 'the broker answered with an error (WRONGTYPE)', ['Operation against a key']],
  ['aws_sqs', 'the broker answered HTTP 400', [PEER_TEXT, 'root:x']],
  ['aws_sns', 'the broker answered HTTP 404 (NotFoundException)', ['does not exist', '-deleted']],
  ['kafka', 'the broker refused it: INVALID_TOPIC_EXCEPTION', ['no topic may hold spaces']],
  ['gcp_pubsub', 'the broker answered NOT_FOUND', ['no-such-topic', 'Topic not found']],
])(
  "%s: the broker's refusal is described in our words, its text not passed on",
  async (type, reason, notShown) => {
    await postTrigger(h.app, triggerBody({ model: type, msg_broker_queues: [{ name: type }] }));
    const id = (
      await request(h.app)
        .post('/api/signals')
        .send({ signal: 'post_save', app_label: 'shop', model_name: type, instance: { id: 1 } })
        .expect(202)
    ).body.id as string;
    const status = await waitForDispatch(h.app, id, undefined, 60_000);
    expect(status.actions[0]).toMatchObject({ state: 'failed', attempts: 2, last_error: `publish to ${type} failed: ${reason}` });
    const answer = (await request(h.app).get(`/api/signals/${id}`).expect(200)).text;
    for (const text of notShown) expect(answer).not.toContain(text);
  },
  90_000,
);
