import { buildTriggerInputCodec } from '../../src/triggers/codecs';
import { toFieldErrors } from '../../src/validation/field-errors';
import { configFrom, policyOf } from '../../src/config';
import { aTrigger, BROKERS_CONFIG } from '../support/test-app';

const codec = buildTriggerInputCodec(policyOf(configFrom({
  ...BROKERS_CONFIG,
  allowed_content_types: ['shop.order', 'shop.refund'],
  webhook_url_patterns: ['^https://hooks\\.example\\.com/'],
  limits: { default_timeout_secs: 5, max_webhook_timeout_secs: 20, max_broker_timeout_secs: 5 },
})));

const errorsOf = (body: unknown) => {
  const r = codec.decode(body);
  return r._tag === 'Left' ? toFieldErrors(r.left) : [];
};
const pathsOf = (body: unknown) => errorsOf(body).map((e) => e.path);

test('a valid trigger decodes, normalised', () => {
  const r = codec.decode(aTrigger({ webhooks: [{ url: 'https://hooks.example.com/a', http_method: 'patch' }], msg_broker_queues: undefined }));
  expect(r._tag).toBe('Right');
  if (r._tag === 'Right') {
    expect(r.right.definition.webhooks[0]!.http_method).toBe('PATCH');
    expect(r.right.definition.msg_broker_queues).toEqual([]);
  }
});

test.each([
  ['config_signals missing', { config_signals: undefined }, 'config_signals', 'is required'],
  ['config_signals empty', { config_signals: [] }, 'config_signals', 'must not be empty'],
  ['unknown signal', { config_signals: [{ signal: 'on_save' }] }, 'config_signals[0].signal', 'must be one of'],
  ['duplicate signal', { config_signals: [{ signal: 'post_save' }, { signal: 'post_save' }] }, 'config_signals[1].signal', 'duplicate'],
  ['content_types empty', { content_types: [] }, 'content_types', 'must not be empty'],
  ['empty app_label', { content_types: [{ app_label: ' ', model_name: 'order' }] }, 'content_types[0].app_label', 'must not be empty'],
  ['missing model_name', { content_types: [{ app_label: 'shop' }] }, 'content_types[0].model_name', 'is required'],
  ['model_name too long', { content_types: [{ app_label: 'shop', model_name: 'o'.repeat(101) }] }, 'content_types[0].model_name', 'at most 100 characters'],
  ['content type not allowed', { content_types: [{ app_label: 'shop', model_name: 'cart' }] }, 'content_types[0]', 'allowed_content_types'],
  ['relative url', { webhooks: [{ url: '/hook', http_method: 'POST' }] }, 'webhooks[0].url', 'absolute http(s)'],
  ['ftp url', { webhooks: [{ url: 'ftp://hooks.example.com/', http_method: 'POST' }] }, 'webhooks[0].url', 'absolute http(s)'],
  ['url too long', { webhooks: [{ url: `https://hooks.example.com/${'a'.repeat(2048)}`, http_method: 'POST' }] }, 'webhooks[0].url', 'at most 2048'],
  ['url not allowed', { webhooks: [{ url: 'https://evil.example.org/', http_method: 'POST' }] }, 'webhooks[0].url', 'webhook_url_patterns'],
  ['bad method', { webhooks: [{ url: 'https://hooks.example.com/', http_method: 'FETCH' }] }, 'webhooks[0].http_method', 'must be one of'],
  ['header not a string', { webhooks: [{ url: 'https://hooks.example.com/', http_method: 'GET', headers: { n: 1 } }] }, 'webhooks[0].headers.n', 'must be a string'],
  ['headers not an object', { webhooks: [{ url: 'https://hooks.example.com/', http_method: 'GET', headers: ['x'] }] }, 'webhooks[0].headers', 'object of strings'],
  ['timeout zero', { webhooks: [{ url: 'https://hooks.example.com/', http_method: 'GET', timeout_secs: 0 }] }, 'webhooks[0].timeout_secs', 'greater than 0'],
  ['timeout over max', { webhooks: [{ url: 'https://hooks.example.com/', http_method: 'GET', timeout_secs: 20.5 }] }, 'webhooks[0].timeout_secs', 'at most 20'],
  ['timeout a string', { webhooks: [{ url: 'https://hooks.example.com/', http_method: 'GET', timeout_secs: '5' }] }, 'webhooks[0].timeout_secs', 'number'],
  ['broker timeout over max', { msg_broker_queues: [{ name: 'orders', timeout_secs: 6 }] }, 'msg_broker_queues[0].timeout_secs', 'at most 5'],
  ['unknown broker', { msg_broker_queues: [{ name: 'billing' }] }, 'msg_broker_queues[0].name', 'broker in the config'],
  ['parameters not strings', { msg_broker_queues: [{ name: 'orders', parameters: { queue: 7 } }] }, 'msg_broker_queues[0].parameters.queue', 'must be a string'],
  ['conn_details spelled as in the table', { msg_broker_queues: [{ name: 'orders', connection_details: {} }] }, 'msg_broker_queues[0].connection_details', 'did you mean conn_details'],
  ['dynamic value not allowed in a header', { webhooks: [{ url: 'https://hooks.example.com/', http_method: 'GET', headers: { a: 'Bearer {{ os.environ }}' } }] }, 'webhooks[0].headers.a', 'not an allowed dynamic value'],
  ['dynamic value not allowed in payload', { payload: { deep: [{ x: '{{ settings.SECRET_KEY }}' }] } }, 'payload.deep[0].x', 'not an allowed dynamic value'],
  ['broken template', { payload: { x: '{{ not a path }}' } }, 'payload.x', 'not a valid template expression'],
  ['active missing', { active: undefined }, 'active', 'is required'],
  ['active not boolean', { active: 'yes' }, 'active', 'true or false'],
  ['unknown top-level field', { colour: 'red' }, 'colour', 'is not a known field'],
  ['unknown webhook field', { webhooks: [{ url: 'https://hooks.example.com/', http_method: 'GET', retries: 3 }] }, 'webhooks[0].retries', 'is not a known field'],
])('%s → 400 at %s', (_name, over, path, message) => {
  const errors = errorsOf(aTrigger({ ...over, webhooks: 'webhooks' in over ? over.webhooks : [{ url: 'https://hooks.example.com/x', http_method: 'POST' }] }));
  expect(errors).toContainEqual({ path, message: expect.stringContaining(message) });
});

test('allowed dynamic values and instance paths are accepted anywhere templates are', () => {
  expect(errorsOf(aTrigger({
    webhooks: [{ url: 'https://hooks.example.com/', http_method: 'POST', headers: { Authorization: 'Bearer {{ env.WEBHOOK_TOKEN }}' } }],
    msg_broker_queues: [{ name: 'orders', conn_details: { password: '{{ secrets.token }}' } }],
    payload: { id: '{{ instance.id }}', nested: { who: '{{instance.customer.name}}' } },
  }))).toEqual([]);
});

test('several wrong fields are reported at once', () => {
  const paths = pathsOf({
    config_signals: [{ signal: 'x' }], content_types: [], active: 1,
    webhooks: [{ url: 'nope', http_method: 'GET' }, { http_method: 'GET' }], msg_broker_queues: [{ name: 'zzz' }],
  });
  expect(paths).toEqual(expect.arrayContaining(['config_signals[0].signal', 'content_types', 'active', 'webhooks[0].url', 'webhooks[1].url', 'msg_broker_queues[0].name']));
});

test('a body that is not an object is one error at (body)', () => {
  for (const body of [null, 3, 'x', [aTrigger()]]) expect(pathsOf(body)).toEqual(['(body)']);
});

test('allowed_content_types takes parts that hold dots as objects, and matches on both parts', () => {
  const dotted = buildTriggerInputCodec(policyOf(configFrom({
    allowed_content_types: ['shop.order', { app_label: 'My.App', model_name: 'order.line' }],
  })));
  const accepts = (app_label: string, model_name: string) =>
    dotted.decode(aTrigger({ content_types: [{ app_label, model_name }], msg_broker_queues: [] }))._tag === 'Right';
  expect(accepts('my.app', 'Order.Line')).toBe(true);
  expect(accepts('SHOP', 'order')).toBe(true);
  expect(accepts('my', 'app.order.line')).toBe(false);
  expect(accepts('my.app.order', 'line')).toBe(false);
  expect(() => configFrom({ allowed_content_types: ['my.app.order.line'] })).toThrow(/allowed_content_types\[0\].*object \{app_label, model_name\}/);
});
