import { addressKeys, hostsOf } from '../../src/destinations/brokers/addresses';
import { SUPPORTED_BROKER_TYPES as BROKER_TYPES } from '../../src/destinations/brokers/registry';
import { configFrom, policyOf } from '../../src/config';
import { refusedOverrides } from '../../src/destinations/brokers/overrides';
import { TESTED_TYPES } from '../support/brokers/targets';

test('every key that names a host, URL, endpoint, topic ARN or project is marked as an address, on every broker type', () => {
  const marked = Object.fromEntries(
    BROKER_TYPES.map((type) => [type, [...addressKeys(type, 'conn_details'), ...addressKeys(type, 'params')].sort()]),
  );
  // What each type's test file says its address keys are.
  expect(marked).toEqual(Object.fromEntries(TESTED_TYPES.map((t) => [t.type, [...t.addressKeys].sort()])));
});

test('hosts are read the way a client might read them: numeric and mapped spellings become addresses, every reading of host:port counts', () => {
  expect(hostsOf('url', 'amqp://u:p@2130706433:5672/vh')).toEqual(['127.0.0.1']);
  expect(hostsOf('url', 'redis://[::ffff:7f00:1]:6379/0')).toEqual(['::ffff:7f00:1']);
  expect(hostsOf('url', 'http://Metadata.Google.Internal./x')).toEqual(['metadata.google.internal']);
  expect(hostsOf('host', ' 0x7f.1 ')).toEqual(['127.0.0.1']);
  expect(hostsOf('host', '[::1]')).toEqual(['::1']);
  expect(hostsOf('host-ports', 'kafka-1.example:9092, 169.254.169.254:9092')).toEqual(['kafka-1.example', '169.254.169.254']);
  // Unbracketed IPv6: all of it, the part kafkajs takes (before the first colon), and before the last.
  expect(hostsOf('host-ports', '::1:9092')).toBeUndefined();
  expect(hostsOf('host-ports', 'fe80::1:9092')).toEqual(['fe80::1:9092', 'fe80', 'fe80::1']);
  // No host at all may mean the local one to a client: unreadable.
  expect(hostsOf('url', 'redis://:secret@/0')).toBeUndefined();
  expect(hostsOf('url', 'not a url')).toBeUndefined();
  expect(hostsOf('destination', 'arn:aws:sns:eu-west-1:123456789012:t')).toEqual([]);
});

const AWS = { region_name: 'eu-west-1', aws_access_key_id: 'AKIDEXAMPLE', aws_secret_access_key: 'example' };

test('by default a trigger may set no address parameter; a broker that lists one in trigger_overrides lets it', () => {
  const policy = policyOf(
    configFrom({
      brokers: {
        sqs: { broker_type: 'aws_sqs', conn_details: AWS, params: { queue_name: 'orders' } },
        sns: { broker_type: 'aws_sns', conn_details: AWS, params: { topic_arn: 'arn:aws:sns:eu-west-1:123456789012:t' } },
        open: {
          broker_type: 'aws_sqs',
          conn_details: AWS,
          params: { queue_name: 'orders' },
          trigger_overrides: { parameters: ['queue_url'] },
        },
      },
    }),
  );
  const refused = (name: string, parameters: Record<string, string>) =>
    refusedOverrides(policy.brokerOverrides!.get(name)!, { name, parameters }).map((r) => `${r.field}.${r.key}`);
  expect(refused('sqs', { queue_url: 'http://127.0.0.1:1/1/q', queue_name: 'other', message_group_id: 'g' })).toEqual([
    'parameters.queue_url',
  ]);
  expect(refused('sns', { topic_arn: 'arn:aws:sns:eu-west-1:999999999999:theirs' })).toEqual(['parameters.topic_arn']);
  expect(refused('open', { queue_url: 'https://sqs.eu-west-1.amazonaws.com/123456789012/q' })).toEqual([]);
  expect(refusedOverrides(policy.brokerOverrides!.get('sqs')!, { name: 'sqs', parameters: { queue_url: 'x' } })[0]?.message).toBe(
    'broker sqs does not let triggers set parameters.queue_url (it says where messages go: see trigger_overrides)',
  );
});
