import { ConfigError, configFrom, policyOf } from '../../src/config';
import { destinationPaceOf, paceLimitOf } from '../../src/destinations/registry';
import { buildTriggerInputCodec } from '../../src/model/triggers/codecs';
import { toFieldErrors } from '../../src/kernel/field-errors';
import { triggerBody } from '../support/trigger-body';

/** Limits per destination in the config: `webhook_limits` by URL prefix, `brokers.<name>.limits` by broker. */
const errorsOf = (file: unknown) => {
  try {
    configFrom(file);
    return [];
  } catch (e) {
    if (e instanceof ConfigError) return e.errors;
    throw e;
  }
};
const kafka = { broker_type: 'kafka', conn_details: { bootstrap_servers: '127.0.0.1:9092' }, params: { topic: 'orders' } };
const webhook = (url: string) => ({ url, http_method: 'POST' });

test('a webhook limit names each bad field by its path, unknown fields too', () => {
  expect(
    errorsOf({
      webhook_limits: [
        { name: 'Bad Name', url_prefix: 'ftp://files.example.com/', max_per_second: 'fast', burst: 1.5, max_in_flight: 0, colour: 'red' },
        { name: 'x'.repeat(65), url_prefix: 7, max_per_second: 10_001, burst: 1001, max_in_flight: 1001 },
        { name: 'ok', url_prefix: 'https://ok.example.com/', max_per_second: 0 },
      ],
    }),
  ).toEqual([
    { path: 'webhook_limits[0].name', message: 'must be 1 to 64 of a-z, 0-9, _ and -' },
    { path: 'webhook_limits[0].url_prefix', message: expect.stringContaining('must be an http(s) URL prefix with scheme and host') },
    { path: 'webhook_limits[0].max_per_second', message: 'must be a number' },
    { path: 'webhook_limits[0].burst', message: 'must be a whole number from 1 to 1000' },
    { path: 'webhook_limits[0].max_in_flight', message: 'must be a whole number from 1 to 1000' },
    { path: 'webhook_limits[0].colour', message: 'is not a known field' },
    { path: 'webhook_limits[1].name', message: 'must be 1 to 64 of a-z, 0-9, _ and -' },
    { path: 'webhook_limits[1].url_prefix', message: 'must be a string' },
    { path: 'webhook_limits[1].max_per_second', message: 'must be greater than 0 and at most 10000' },
    { path: 'webhook_limits[1].burst', message: 'must be a whole number from 1 to 1000' },
    { path: 'webhook_limits[1].max_in_flight', message: 'must be a whole number from 1 to 1000' },
    { path: 'webhook_limits[2].max_per_second', message: 'must be greater than 0 and at most 10000' },
  ]);
  expect(errorsOf({ webhook_limits: { name: 'a' } })).toEqual([{ path: 'webhook_limits', message: 'must be an array' }]);
  expect(errorsOf({ webhook_limits: [null] })).toEqual([{ path: 'webhook_limits[0]', message: 'must be an object' }]);
});

test('a limit needs max_per_second or max_in_flight, and burst only goes with max_per_second', () => {
  expect(
    errorsOf({
      webhook_limits: [
        { name: 'none', url_prefix: 'https://a.example.com/' },
        { name: 'lone_burst', url_prefix: 'https://b.example.com/', burst: 5, max_in_flight: 2 },
      ],
      brokers: { events: { ...kafka, limits: { burst: 2 } }, other: { ...kafka, limits: 3 } },
    }),
  ).toEqual([
    { path: 'webhook_limits[0]', message: 'needs max_per_second, max_in_flight or both' },
    { path: 'webhook_limits[1].burst', message: 'is only allowed with max_per_second' },
    { path: 'brokers.events.limits', message: 'needs max_per_second, max_in_flight or both' },
    { path: 'brokers.events.limits.burst', message: 'is only allowed with max_per_second' },
    { path: 'brokers.other.limits', message: 'must be an object' },
  ]);
});

test('a url_prefix is an http(s) URL with its scheme and host, and no credentials', () => {
  const prefixErrors = (url_prefix: string) =>
    errorsOf({ webhook_limits: [{ name: 'a', url_prefix, max_in_flight: 1 }] }).map((e) => e.path + ': ' + e.message.split(' (')[0]);
  for (const bad of ['https://', 'https:///path', '/orders', 'api.example.com/', 'https:api.example.com', 'https://a b.example.com/'])
    expect([bad, prefixErrors(bad)]).toEqual([bad, ['webhook_limits[0].url_prefix: must be an http(s) URL prefix with scheme and host']]);
  expect(prefixErrors('https://user:pw@api.example.com/')).toEqual(['webhook_limits[0].url_prefix: must not contain credentials']);
  for (const good of ['https://api.example.com', 'http://API.example.com:8080/v1/ord', 'https://[::1]/x'])
    expect([good, prefixErrors(good)]).toEqual([good, []]);
});

test('a name or a prefix twice is named at the repeat (hosts compared in any case), with every other problem', () => {
  expect(
    errorsOf({
      webhook_limits: [
        { name: 'orders', url_prefix: 'https://API.example.com/orders', max_per_second: 1 },
        { name: 'orders', url_prefix: 'https://api.example.com/orders', max_per_second: 2 },
        { name: 'other', url_prefix: 'https://api.example.com/ORDERS', max_per_second: 'x' },
      ],
    }),
  ).toEqual([
    { path: 'webhook_limits[2].max_per_second', message: 'must be a number' },
    { path: 'webhook_limits[1].name', message: 'repeats the name of webhook_limits[0]' },
    { path: 'webhook_limits[1].url_prefix', message: 'repeats the url_prefix of webhook_limits[0]' },
  ]);
});

const config = configFrom({
  webhook_limits: [
    { name: 'api', url_prefix: 'https://api.example.com/', max_per_second: 5 },
    { name: 'orders', url_prefix: 'https://API.Example.com/orders/', max_in_flight: 2 },
    { name: 'slow', url_prefix: 'http://slow.example.com', max_per_second: 0.5, burst: 3, max_in_flight: 1 },
  ],
  brokers: { limited: { ...kafka, limits: { max_per_second: 20, burst: 10 } }, free: kafka },
});
const s = config.destinations;

const orders = { key: 'webhook:orders', burst: 1, maxInFlight: 2 };
const api = { key: 'webhook:api', maxPerSecond: 5, burst: 1 };
test.each([
  ['https://api.example.com/orders/17', orders],
  ['HTTPS://api.EXAMPLE.com/orders/', orders],
  // Past the host, as written: another case is another path.
  ['https://api.example.com/ORDERS/17', api],
  ['http://slow.example.com/x', { key: 'webhook:slow', maxPerSecond: 0.5, burst: 3, maxInFlight: 1 }],
  ['http://slow.example.com?x=1', { key: 'webhook:slow', maxPerSecond: 0.5, burst: 3, maxInFlight: 1 }],
  // A prefix of scheme and host alone covers that host only: not a longer host, not another port.
  ['http://slow.example.com.evil.org/x', undefined],
  ['http://slow.example.com:8080/x', undefined],
  // Another scheme, or a URL no prefix starts: no limit.
  ['http://api.example.com/orders/17', undefined],
  ['https://hooks.example.com/', undefined],
])('a webhook to %s takes the limit of the longest prefix it starts with (scheme and host in any case)', (url, pace) => {
  expect(destinationPaceOf(s, 'webhook', webhook(url))).toEqual(pace);
});

test('no webhook_limits: no webhook has a limit', () => {
  expect(destinationPaceOf(configFrom({}).destinations, 'webhook', webhook('https://api.example.com/'))).toBeUndefined();
});

test("a queue entry takes its broker's limits, keyed by the broker; a broker without limits sets none", () => {
  expect(destinationPaceOf(s, 'broker', { name: 'limited', parameters: { topic: 'audit' } })).toEqual({
    key: 'broker:limited',
    maxPerSecond: 20,
    burst: 10,
  });
  expect(destinationPaceOf(s, 'broker', { name: 'free' })).toBeUndefined();
  expect(destinationPaceOf(s, 'broker', { name: 'gone' })).toBeUndefined();
  expect(destinationPaceOf(s, 'broker', { name: 'toString' })).toBeUndefined();
});

test("paceLimitOf reads a key's limit in today's config, through the kind its key names", () => {
  expect(paceLimitOf(s, 'webhook:orders')).toEqual({ burst: 1, maxInFlight: 2 });
  expect(paceLimitOf(s, 'broker:limited')).toEqual({ maxPerSecond: 20, burst: 10 });
  for (const key of ['webhook:gone', 'broker:free', 'broker:gone', 'broker:toString', 'broker:orders', 'lambda:limited', 'webhook', ''])
    expect([key, paceLimitOf(s, key)]).toEqual([key, undefined]);
});

test("limits are the operator's: trigger_overrides cannot name them, and a queue entry cannot set or change them", () => {
  expect(errorsOf({ brokers: { b: { ...kafka, trigger_overrides: { limits: ['max_per_second'] } } } })).toEqual([
    { path: 'brokers.b.trigger_overrides.limits', message: 'is not a known field' },
  ]);
  const open = configFrom({
    brokers: { b: { ...kafka, limits: { max_in_flight: 1 }, trigger_overrides: { parameters: ['limits', 'topic'] } } },
  });
  const codec = buildTriggerInputCodec(policyOf(open));
  const decode = (queue: object) => codec.decode(triggerBody({ msg_broker_queues: [queue] }));
  const refused = decode({ name: 'b', limits: { max_in_flight: 100 } });
  expect(refused._tag === 'Left' && toFieldErrors(refused.left)).toEqual([
    { path: 'msg_broker_queues[0].limits', message: 'is not a known field' },
  ]);
  // A parameter that happens to be called `limits` is a string for the publisher, never the broker's limit.
  const queue = { name: 'b', parameters: { limits: '{"max_in_flight": 100}' } };
  expect(decode(queue)._tag).toBe('Right');
  expect(destinationPaceOf(open.destinations, 'broker', queue)).toEqual({ key: 'broker:b', burst: 1, maxInFlight: 1 });
});
