import { buildTriggerInputCodec } from '../../src/model/triggers/codecs';
import { toFieldErrors } from '../../src/kernel/field-errors';
import { readStoredEvent } from '../../src/model/triggers/stored-events';
import { configFrom, policyOf } from '../../src/config';
import { aTrigger, BROKERS_CONFIG } from '../support/test-app';

const codec = buildTriggerInputCodec(
  policyOf(
    configFrom({
      ...BROKERS_CONFIG,
      brokers: {
        ...BROKERS_CONFIG.brokers,
        shared: { broker_type: 'rabbitmq', trigger_overrides: { conn_details: ['password'], parameters: ['queue'] } },
      },
      allowed_content_types: ['shop.order', 'shop.refund'],
      webhook_url_patterns: ['^https://hooks\\.example\\.com/'],
      limits: { default_timeout_secs: 5, max_webhook_timeout_secs: 20, max_broker_timeout_secs: 5 },
    }),
  ),
);

const errorsOf = (body: unknown) => {
  const r = codec.decode(body);
  return r._tag === 'Left' ? toFieldErrors(r.left) : [];
};
const pathsOf = (body: unknown) => errorsOf(body).map((e) => e.path);

test('a valid trigger decodes, normalised', () => {
  const r = codec.decode(
    aTrigger({ webhooks: [{ url: 'https://hooks.example.com/a', http_method: 'patch' }], msg_broker_queues: undefined }),
  );
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
  [
    'model_name too long',
    { content_types: [{ app_label: 'shop', model_name: 'o'.repeat(101) }] },
    'content_types[0].model_name',
    'at most 100 characters',
  ],
  ['content type not allowed', { content_types: [{ app_label: 'shop', model_name: 'cart' }] }, 'content_types[0]', 'allowed_content_types'],
  ['relative url', { webhooks: [{ url: '/hook', http_method: 'POST' }] }, 'webhooks[0].url', 'absolute http(s)'],
  ['ftp url', { webhooks: [{ url: 'ftp://hooks.example.com/', http_method: 'POST' }] }, 'webhooks[0].url', 'absolute http(s)'],
  [
    'url too long',
    { webhooks: [{ url: `https://hooks.example.com/${'a'.repeat(2048)}`, http_method: 'POST' }] },
    'webhooks[0].url',
    'at most 2048',
  ],
  ['url not allowed', { webhooks: [{ url: 'https://evil.example.org/', http_method: 'POST' }] }, 'webhooks[0].url', 'webhook_url_patterns'],
  ['bad method', { webhooks: [{ url: 'https://hooks.example.com/', http_method: 'FETCH' }] }, 'webhooks[0].http_method', 'must be one of'],
  [
    'header not a string',
    { webhooks: [{ url: 'https://hooks.example.com/', http_method: 'GET', headers: { n: 1 } }] },
    'webhooks[0].headers.n',
    'must be a string',
  ],
  [
    'headers not an object',
    { webhooks: [{ url: 'https://hooks.example.com/', http_method: 'GET', headers: ['x'] }] },
    'webhooks[0].headers',
    'object of strings',
  ],
  [
    'timeout zero',
    { webhooks: [{ url: 'https://hooks.example.com/', http_method: 'GET', timeout_secs: 0 }] },
    'webhooks[0].timeout_secs',
    'greater than 0',
  ],
  [
    'timeout over max',
    { webhooks: [{ url: 'https://hooks.example.com/', http_method: 'GET', timeout_secs: 20.5 }] },
    'webhooks[0].timeout_secs',
    'at most 20',
  ],
  [
    'timeout a string',
    { webhooks: [{ url: 'https://hooks.example.com/', http_method: 'GET', timeout_secs: '5' }] },
    'webhooks[0].timeout_secs',
    'number',
  ],
  [
    'broker timeout over max',
    { msg_broker_queues: [{ name: 'orders', timeout_secs: 6 }] },
    'msg_broker_queues[0].timeout_secs',
    'at most 5',
  ],
  ['unknown broker', { msg_broker_queues: [{ name: 'billing' }] }, 'msg_broker_queues[0].name', 'broker in the config'],
  [
    'parameters not strings',
    { msg_broker_queues: [{ name: 'orders', parameters: { queue: 7 } }] },
    'msg_broker_queues[0].parameters.queue',
    'must be a string',
  ],
  [
    'conn_details spelled as in the table',
    { msg_broker_queues: [{ name: 'orders', connection_details: {} }] },
    'msg_broker_queues[0].connection_details',
    'did you mean conn_details',
  ],
  [
    'dynamic value not allowed in a header',
    { webhooks: [{ url: 'https://hooks.example.com/', http_method: 'GET', headers: { a: 'Bearer {{ os.environ }}' } }] },
    'webhooks[0].headers.a',
    'not an allowed dynamic value',
  ],
  [
    'dynamic value not allowed in payload',
    { payload: { deep: [{ x: '{{ settings.SECRET_KEY }}' }] } },
    'payload.deep[0].x',
    'not an allowed dynamic value',
  ],
  ['broken template', { payload: { x: '{{ not a path }}' } }, 'payload.x', 'not a valid template expression'],
  ['template through a prototype', { payload: { x: 'a {{ instance.constructor.name }}' } }, 'payload.x', 'may not use constructor'],
  ['long broken template, quoted short', { payload: { x: `{{${' '.repeat(6000)}}}` } }, 'payload.x', '{{     '],
  ['active missing', { active: undefined }, 'active', 'is required'],
  ['active not boolean', { active: 'yes' }, 'active', 'true or false'],
  ['unknown top-level field', { colour: 'red' }, 'colour', 'is not a known field'],
  [
    'unknown webhook field',
    { webhooks: [{ url: 'https://hooks.example.com/', http_method: 'GET', retries: 3 }] },
    'webhooks[0].retries',
    'is not a known field',
  ],
])('%s → 400 at %s', (_name, over, path, message) => {
  const errors = errorsOf(
    aTrigger({ ...over, webhooks: 'webhooks' in over ? over.webhooks : [{ url: 'https://hooks.example.com/x', http_method: 'POST' }] }),
  );
  expect(errors).toContainEqual({ path, message: expect.stringContaining(message) });
});

type Case = [name: string, over: Record<string, unknown>, path: string, message: string];

/** Targets, headers and broker keys a trigger must not reach (SSRF, header injection, broker addresses). */
const SAFETY_CASES: Case[] = [
  [
    'URL with credentials',
    { webhooks: [{ url: 'https://hooks.example.com@evil.example.org/', http_method: 'POST' }] },
    'webhooks[0].url',
    'must not contain credentials',
  ],
  [
    'URL with an empty host label',
    { webhooks: [{ url: 'https://hooks..example.com/', http_method: 'POST' }] },
    'webhooks[0].url',
    'valid host',
  ],
  ...[
    'http://127.0.0.1/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[0:0:0:0:0:ffff:7f00:1]/',
    'http://[::ffff:0.0.0.0]/',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://127.1/',
    'http://017700000001/',
    'http://[::1]/',
    'http://[fd00::1]/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::ffff:a9fe:a9fe]/',
    'http://[64:ff9b::7f00:1]/',
    'http://[fec0::1]/',
    'http://localhost/',
    'http://LOCALHOST./',
    'http://api.localhost/',
    'http://0.0.0.0/',
  ].map((url): Case => [
    `private target ${url}`,
    { webhooks: [{ url, http_method: 'POST' }] },
    'webhooks[0].url',
    'allow_private_targets is off',
  ]),
  [
    'header value with CR LF',
    { webhooks: [{ url: 'https://hooks.example.com/', http_method: 'GET', headers: { 'x-a': 'v\r\nX-Injected: 1' } }] },
    'webhooks[0].headers.x-a',
    'control characters',
  ],
  [
    'header value with NUL',
    { webhooks: [{ url: 'https://hooks.example.com/', http_method: 'GET', headers: { 'x-a': 'v\u0000' } }] },
    'webhooks[0].headers.x-a',
    'control characters',
  ],
  [
    'header value beyond Latin-1',
    { webhooks: [{ url: 'https://hooks.example.com/', http_method: 'GET', headers: { 'x-a': '5 €' } }] },
    'webhooks[0].headers.x-a',
    'beyond Latin-1',
  ],
  [
    'header name with a space',
    { webhooks: [{ url: 'https://hooks.example.com/', http_method: 'GET', headers: { 'x a': 'v' } }] },
    'webhooks[0].headers.x a',
    'not a valid header name',
  ],
  [
    'header name with a colon',
    { webhooks: [{ url: 'https://hooks.example.com/', http_method: 'GET', headers: { 'x:a': 'v' } }] },
    'webhooks[0].headers.x:a',
    'not a valid header name',
  ],
  ...[
    'Host',
    'content-length',
    'Transfer-Encoding',
    'connection',
    'Upgrade',
    'expect',
    'TE',
    'keep-alive',
    'Proxy-Authorization',
    'proxy-x',
  ].map((name): Case => [
    `header ${name}`,
    { webhooks: [{ url: 'https://hooks.example.com/', http_method: 'GET', headers: { [name]: 'v' } }] },
    `webhooks[0].headers.${name}`,
    'set by the HTTP client',
  ]),
  [
    'header webhook-signature',
    { webhooks: [{ url: 'https://hooks.example.com/', http_method: 'GET', headers: { 'Webhook-Signature': 'v1,x' } }] },
    'webhooks[0].headers.Webhook-Signature',
    'set by the service',
  ],
  [
    'header repeated in another case',
    { webhooks: [{ url: 'https://hooks.example.com/', http_method: 'GET', headers: { 'X-A': '1', 'x-a': '2' } }] },
    'webhooks[0].headers.x-a',
    'repeats a header name',
  ],
  [
    'conn_details by default',
    { msg_broker_queues: [{ name: 'orders', conn_details: { url: 'amqp://attacker.example' } }] },
    'msg_broker_queues[0].conn_details.url',
    'broker orders does not let triggers set conn_details.url',
  ],
  [
    'conn_details key not listed',
    { msg_broker_queues: [{ name: 'shared', conn_details: { host: 'attacker.example' } }] },
    'msg_broker_queues[0].conn_details.host',
    'does not let triggers set conn_details.host',
  ],
  [
    'parameters key not listed',
    { msg_broker_queues: [{ name: 'shared', parameters: { exchange: 'amq.topic' } }] },
    'msg_broker_queues[0].parameters.exchange',
    'does not let triggers set parameters.exchange',
  ],
];

test.each(SAFETY_CASES)('%s → 400 at %s', (_name, over, path, message) => {
  const errors = errorsOf(
    aTrigger({ ...over, webhooks: 'webhooks' in over ? over.webhooks : [{ url: 'https://hooks.example.com/x', http_method: 'POST' }] }),
  );
  expect(errors).toContainEqual({ path, message: expect.stringContaining(message) });
});

test('allowed dynamic values and instance paths are accepted anywhere templates are', () => {
  expect(
    errorsOf(
      aTrigger({
        webhooks: [
          { url: 'https://hooks.example.com/', http_method: 'POST', headers: { Authorization: 'Bearer {{ env.WEBHOOK_TOKEN }}' } },
        ],
        msg_broker_queues: [
          { name: 'shared', conn_details: { password: '{{ secrets.token }}' }, parameters: { queue: '{{ instance.queue }}' } },
        ],
        payload: { id: '{{ instance.id }}', nested: { who: '{{instance.customer.name}}' } },
      }),
    ),
  ).toEqual([]);
});

test('several wrong fields are reported at once', () => {
  const paths = pathsOf({
    config_signals: [{ signal: 'x' }],
    content_types: [],
    active: 1,
    webhooks: [{ url: 'nope', http_method: 'GET' }, { http_method: 'GET' }],
    msg_broker_queues: [{ name: 'zzz' }],
  });
  expect(paths).toEqual(
    expect.arrayContaining([
      'config_signals[0].signal',
      'content_types',
      'active',
      'webhooks[0].url',
      'webhooks[1].url',
      'msg_broker_queues[0].name',
    ]),
  );
});

test('a body that is not an object is one error at (body)', () => {
  for (const body of [null, 3, 'x', [aTrigger()]]) expect(pathsOf(body)).toEqual(['(body)']);
});

test('URL patterns match from the start of the URL, like re.match, not anywhere in it', () => {
  const c = buildTriggerInputCodec(
    policyOf(configFrom({ webhook_url_patterns: ['https://example\\.com/', 'https://a\\.example/|https://b\\.example/'] })),
  );
  const urlErrors = (url: string) => {
    const r = c.decode(aTrigger({ webhooks: [{ url, http_method: 'POST' }], msg_broker_queues: [] }));
    return r._tag === 'Left' ? toFieldErrors(r.left) : [];
  };
  for (const url of [
    'http://not-allowed.com/?next=https://example.com/',
    'https://evil.example/#https://example.com/',
    'https://evil.example/?https://b.example/',
  ]) {
    expect([url, urlErrors(url)]).toEqual([url, [{ path: 'webhooks[0].url', message: 'is not allowed by webhook_url_patterns' }]]);
  }
  for (const url of ['https://example.com/hook', 'https://example.com/', 'https://b.example/x'])
    expect([url, urlErrors(url)]).toEqual([url, []]);
  // Twice in a row: a sticky pattern's lastIndex must not carry over from one URL to the next.
  expect(urlErrors('https://example.com/hook')).toEqual([]);
});

test('with allow_private_targets on, private and loopback hosts are accepted', () => {
  const c = buildTriggerInputCodec(policyOf(configFrom({ allow_private_targets: true })));
  for (const url of ['http://127.0.0.1:8080/', 'http://localhost/', 'http://[::ffff:7f00:1]/', 'http://10.0.0.5/']) {
    expect([url, c.decode(aTrigger({ webhooks: [{ url, http_method: 'POST' }], msg_broker_queues: [] }))._tag]).toEqual([url, 'Right']);
  }
});

test('stored events stay readable: rules added later do not apply when decoding them', () => {
  const definition = aTrigger({
    webhooks: [{ url: 'http://user:pw@127.0.0.1/', http_method: 'POST', headers: { Host: 'x', 'x-a': 'a\r\nb', 'webhook-id': 'x' } }],
    msg_broker_queues: [{ name: 'gone', conn_details: { url: 'amqp://elsewhere' } }],
  });
  const event = readStoredEvent({
    type: 'TriggerCreated',
    data: { schema_version: 1, trigger_id: 't1', definition },
    streamId: 'action_trigger-t1',
    revision: 0n,
  });
  expect(event?.type).toBe('TriggerCreated');
});

test('write-time template rules do not apply to stored events: one written before them is still read back', () => {
  const definition = { ...aTrigger(), payload: { x: '{{ instance.constructor }}', y: '{{ anything.goes }}' } };
  expect(errorsOf(definition).map((e) => e.path)).toEqual(['payload.x', 'payload.y']);
  const event = readStoredEvent({
    type: 'TriggerCreated',
    data: { schema_version: 1, trigger_id: 't1', definition },
    streamId: 'action_trigger-t1',
    revision: 0n,
  });
  expect(event?.type).toBe('TriggerCreated');
});

test('an error message quotes a long expression in a few dozen characters', () => {
  const messages = errorsOf(aTrigger({ payload: [`{{${' '.repeat(6000)}}}`, `{{ ${'a.'.repeat(5000)}b }}`] })).map((e) => e.message);
  expect(messages).toHaveLength(2);
  for (const m of messages) expect(m.length).toBeLessThan(160);
});

test('allowed_content_types takes parts that hold dots as objects, and matches on both parts', () => {
  const dotted = buildTriggerInputCodec(
    policyOf(
      configFrom({
        allowed_content_types: ['shop.order', { app_label: 'My.App', model_name: 'order.line' }],
      }),
    ),
  );
  const accepts = (app_label: string, model_name: string) =>
    dotted.decode(aTrigger({ content_types: [{ app_label, model_name }], msg_broker_queues: [] }))._tag === 'Right';
  expect(accepts('my.app', 'Order.Line')).toBe(true);
  expect(accepts('SHOP', 'order')).toBe(true);
  expect(accepts('my', 'app.order.line')).toBe(false);
  expect(accepts('my.app.order', 'line')).toBe(false);
  expect(() => configFrom({ allowed_content_types: ['my.app.order.line'] })).toThrow(
    /allowed_content_types\[0\].*object \{app_label, model_name\}/,
  );
});
