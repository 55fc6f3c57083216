import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configFrom, ConfigError, policyOf } from '../../src/config';
import { buildTriggerInputCodec } from '../../src/model/triggers/codecs';
import { toFieldErrors } from '../../src/kernel/field-errors';
import { publisherFor, SUPPORTED_BROKER_TYPES } from '../../src/destinations/brokers/registry';
import type { SettingsKey } from '../../src/destinations/broker-kit/settings-keys';
import { triggerBody } from '../support/trigger-body';

/** An ACTION_TRIGGERS["brokers"] block as the origin project's users have it, names unchanged. */
const ORIGIN_BROKERS = {
  rabbit_url: { broker_type: 'rabbitmq', conn_details: { url: 'amqp://guest:guest@127.0.0.1:5672/' }, params: { queue: 'orders' } },
  rabbit_host: { broker_type: 'RabbitMQ', conn_details: { host: '127.0.0.1', port: '5672' }, params: { queue: 'orders' } },
  kafka_a: { broker_type: 'kafka', conn_details: { bootstrap_servers: '127.0.0.1:9092' }, params: { topic: 'orders' } },
  kafka_b: { broker_type: 'kafka', conn_details: { bootstrap_servers: '10.0.0.1:9092,10.0.0.2:9092' }, params: { topic: 'audit' } },
  redis_url: { broker_type: 'redis', conn_details: { url: 'redis://127.0.0.1:6379/0' }, params: { channel: 'orders' } },
  redis_host: { broker_type: 'redis', conn_details: { host: '127.0.0.1', port: '6379', db: '1' }, params: { channel: 'orders' } },
  sqs: {
    broker_type: 'aws_sqs',
    conn_details: {
      endpoint_url: 'http://127.0.0.1:5000',
      region_name: 'us-east-1',
      aws_access_key_id: 'test',
      aws_secret_access_key: '{{ env.AWS_SECRET }}',
    },
    params: { queue_url: 'http://127.0.0.1:5000/123456789012/orders' },
  },
  sns: {
    broker_type: 'aws_sns',
    conn_details: { region_name: 'us-east-1', aws_access_key_id: 'test', aws_secret_access_key: 'x' },
    params: { topic_arn: 'arn:aws:sns:us-east-1:123456789012:orders' },
  },
  pubsub: { broker_type: 'gcp_pubsub', conn_details: { project: 'shop', topic: 'orders', emulator_host: '127.0.0.1:8085' }, params: {} },
};

test('every broker type of the origin project is supported, its AWS Lambda actions as a type, and EventBridge', () => {
  const origin = Object.values(ORIGIN_BROKERS).map((b) => b.broker_type.toLowerCase());
  expect(SUPPORTED_BROKER_TYPES).toEqual(expect.arrayContaining([...origin, 'aws_lambda', 'aws_eventbridge']));
});

test('an origin-style brokers block loads unchanged in names (broker_type in any case)', () => {
  const config = configFrom({ brokers: ORIGIN_BROKERS });
  expect(config.file.brokers?.rabbit_host?.broker_type).toBe('rabbitmq');
  for (const [name, b] of Object.entries(ORIGIN_BROKERS)) {
    expect([name, publisherFor(b.broker_type)?.settings(b.conn_details, b.params).ok]).toEqual([name, true]);
  }
});

const configErrors = (brokers: unknown) => {
  try {
    configFrom({ brokers });
    return [];
  } catch (e) {
    return (e as ConfigError).errors;
  }
};

test('at start, each missing key a trigger may not set is named by its key', () => {
  expect(
    configErrors({
      k: { broker_type: 'kafka', params: { topic: 't' } },
      r: { broker_type: 'redis', params: { channel: 'c' } },
      q: { broker_type: 'aws_sqs', params: { queue_name: 'q' } },
      p: { broker_type: 'gcp_pubsub', conn_details: { topic: 't' } },
      // A key the trigger may set is not required of the config...
      open: { broker_type: 'kafka', conn_details: { bootstrap_servers: 'h:1' } },
      // ...unless trigger_overrides says the trigger may not set it.
      closed: { broker_type: 'kafka', conn_details: { bootstrap_servers: 'h:1' }, trigger_overrides: { parameters: ['key'] } },
    }),
  ).toEqual([
    { path: 'brokers.k.conn_details.bootstrap_servers', message: 'is required (host:port, comma-separated)' },
    { path: 'brokers.r.conn_details.host', message: 'is required (or url)' },
    { path: 'brokers.q.conn_details.region_name', message: expect.stringContaining('is required') },
    { path: 'brokers.q.conn_details.aws_access_key_id', message: expect.stringContaining('is required') },
    { path: 'brokers.q.conn_details.aws_secret_access_key', message: expect.stringContaining('is required') },
    { path: 'brokers.p.conn_details.project', message: 'is required' },
    { path: 'brokers.p.conn_details.credentials_json', message: expect.stringContaining('never asks a metadata server') },
    { path: 'brokers.closed.params.topic', message: 'is required' },
  ]);
});

test('a trigger completing a broker is checked after merging, with field paths where it would set the key', () => {
  const codec = buildTriggerInputCodec(
    policyOf(
      configFrom({
        brokers: {
          events: { broker_type: 'kafka', conn_details: { bootstrap_servers: '127.0.0.1:9092' } },
          cache: { broker_type: 'redis', conn_details: { url: 'redis://127.0.0.1:6379' } },
        },
      }),
    ),
  );
  const errorsOf = (queues: unknown[]) => {
    const r = codec.decode(triggerBody({ app: 'a', model: 'b', msg_broker_queues: queues }));
    return r._tag === 'Left' ? toFieldErrors(r.left) : [];
  };
  expect(errorsOf([{ name: 'events' }, { name: 'cache', parameters: { channel: 'c', stream: 's' } }])).toEqual([
    { path: 'msg_broker_queues[0].parameters.topic', message: 'is required' },
    { path: 'msg_broker_queues[1].parameters.channel', message: 'give exactly one of channel or stream' },
  ]);
  expect(
    errorsOf([
      { name: 'events', parameters: { topic: 'orders', key: '{{ instance.id }}' } },
      { name: 'cache', parameters: { stream: 's' } },
    ]),
  ).toEqual([]);
});

test('the example config loads, with a broker of every type', () => {
  const file = JSON.parse(readFileSync(join(__dirname, '../../action-triggers.config.example.json'), 'utf8'));
  const types = Object.values(configFrom(file).file.brokers ?? {}).map((b) => b.broker_type);
  expect([...new Set(types)].sort()).toEqual([...SUPPORTED_BROKER_TYPES].sort());
});

test("each broker type reads the keys of its table (its publisher's `keys`) as the table says: missing, each required one is named", () => {
  for (const type of SUPPORTED_BROKER_TYPES) {
    const keys = publisherFor(type)!.keys;
    const missing = (publisherFor(type)!.settings({}, {}) as { errors: Array<{ path: string }> }).errors.map((e) => e.path);
    const marked = (required: (k: SettingsKey) => boolean) =>
      (['conn_details', 'params'] as const).flatMap((section) =>
        Object.entries(keys[section])
          .filter(([, k]) => required(k))
          .map(([key]) => `${section}.${key}`),
      );
    // Every key named missing is one the table requires (always or unless another is given)...
    expect([type, missing.filter((p) => !marked((k) => k.required === true || k.requiredUnless !== undefined).includes(p))]).toEqual([
      type,
      [],
    ]);
    // ...and every key it always requires is named.
    expect([type, marked((k) => k.required === true).filter((p) => !missing.includes(p))]).toEqual([type, []]);
  }
});
