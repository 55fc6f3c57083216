import { isLeft } from 'fp-ts/Either';
import { closestName } from '../../src/kernel/closest-name';
import { configFrom, policyOf } from '../../src/config';
import { buildTriggerInputCodec } from '../../src/model/triggers/codecs';
import { toFieldErrors } from '../../src/kernel/field-errors';

const TRIGGER_FIELDS = ['config_signals', 'content_types', 'webhooks', 'msg_broker_queues', 'active', 'payload', 'ordering'];

test.each([
  ['webhoks', 'webhooks'],
  ['webhook', 'webhooks'],
  ['config_signal', 'config_signals'],
  ['paylaod', 'payload'],
  ['contnet_types', 'content_types'],
  ['msg_broker_queue', 'msg_broker_queues'],
  ['Active', 'active'],
  ['orderign', 'ordering'],
])('%s: did you mean %s', (typo, meant) => {
  expect(closestName(typo, TRIGGER_FIELDS)).toBe(meant);
});

test.each(['zzz', 'url', 'conditions_and_more', 'a'])('%s: nothing near enough to suggest', (name) => {
  expect(closestName(name, TRIGGER_FIELDS)).toBeUndefined();
});

test('a trigger body with misspelt fields names each with the field it meant, at its path', () => {
  const decoded = buildTriggerInputCodec(policyOf(configFrom({}))).decode({
    config_signals: [{ signal: 'post_save' }],
    content_types: [{ app_label: 'shop', model_name: 'order' }],
    active: true,
    paylaod: {},
    webhooks: [{ url: 'https://hooks.example.com/x', http_method: 'POST', timeout_sec: 3 }],
    zzz: 1,
  });
  expect(isLeft(decoded)).toBe(true);
  if (!isLeft(decoded)) return;
  expect(toFieldErrors(decoded.left)).toEqual(
    expect.arrayContaining([
      { path: 'paylaod', message: 'is not a known field; did you mean payload?' },
      { path: 'webhooks[0].timeout_sec', message: 'is not a known field; did you mean timeout_secs?' },
      { path: 'zzz', message: 'is not a known field' },
    ]),
  );
});
