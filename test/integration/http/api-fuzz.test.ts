import fc from 'fast-check';
import request from 'supertest';
import { aTrigger as anyTrigger, BROKERS_CONFIG } from '../../support/test-app';
import { startDispatchHarness } from '../../support/dispatch-harness';
import { startReceiver, Receiver } from '../../support/receiver';
import { testServers } from '../../support/servers';

/**
 * No malformed body, header or path may produce a 5xx. 1,500 generated requests against the
 * real app on a real SQLite store, with dispatch on the real Temporal dev server.
 */
let t: Awaited<ReturnType<typeof startDispatchHarness>>;
let rx: Receiver;
let existingId: string;
/** Valid signals are dispatched for real: every target is on loopback (a receiver, the test RabbitMQ). */
const aTrigger = (over: Record<string, unknown> = {}) => anyTrigger({ webhooks: [{ url: rx.url('/fuzz'), http_method: 'POST' }], ...over });
beforeAll(async () => {
  rx = await startReceiver();
  t = await startDispatchHarness({
    ...BROKERS_CONFIG,
    brokers: { orders: { ...BROKERS_CONFIG.brokers.orders, conn_details: { url: testServers().rabbit.url } } },
  });
  existingId = (await request(t.app).post('/api/action-triggers').send(aTrigger()).expect(201)).body.id;
});
afterAll(async () => {
  await t.close();
  await rx.close();
});

const ascii = fc.string({ unit: 'grapheme-ascii', maxLength: 40 });
const segment = fc.oneof(
  fc.string({ maxLength: 20 }).map(encodeURIComponent),
  fc.uuid(),
  fc.constantFrom('%', '%E0%A4%A', '%00', '..', '%2F', 'history', ''),
  fc.constant('EXISTING'),
);
const randomPath = fc
  .tuple(
    fc.constantFrom('/api/action-triggers', '/api', '/', '/api/signals'),
    fc.array(segment, { maxLength: 3 }),
    fc.option(
      fc.dictionary(
        fc.string({ maxLength: 8 }).map(encodeURIComponent),
        fc.oneof(ascii.map(encodeURIComponent), fc.constantFrom('true', '0', '1001', '-1')),
      ),
      { nil: undefined },
    ),
  )
  .map(([base, segs, query]) => {
    const p = [base, ...segs].join('/').replace(/\/+/g, '/');
    const q = query
      ? Object.entries(query)
          .map(([k, v]) => `${k}=${v}`)
          .join('&')
      : '';
    return q ? `${p}?${q}` : p;
  });
const path = fc.oneof(
  {
    arbitrary: fc.constantFrom(
      '/api/action-triggers',
      '/api/action-triggers/EXISTING',
      '/api/action-triggers/EXISTING/history',
      '/api/signals',
      '/api/signals/EXISTING',
    ),
    weight: 5,
  },
  { arbitrary: randomPath, weight: 3 },
);

const fields = ['config_signals', 'content_types', 'webhooks', 'msg_broker_queues', 'active', 'payload', 'id', 'version'];
const mutatedTrigger = fc
  .tuple(fc.constantFrom(...fields), fc.jsonValue(), fc.constantFrom('top', 'item', 'deep'))
  .map(([field, value, where]) => {
    const base = aTrigger() as Record<string, unknown>;
    if (where === 'top') return { ...base, [field]: value };
    if (where === 'item') return { ...base, [field]: [value] };
    return {
      ...base,
      webhooks: [{ url: rx.url('/fuzz'), http_method: 'POST', [field]: value }],
      msg_broker_queues: [{ name: 'orders', parameters: value }],
    };
  });
const signal = fc.record(
  {
    id: fc.option(fc.oneof(fc.uuid(), ascii), { nil: undefined }),
    signal: fc.oneof(fc.constantFrom('post_save', 'pre_delete'), ascii),
    app_label: fc.oneof(fc.constant('shop'), ascii),
    model_name: fc.oneof(fc.constant('order'), ascii),
    instance: fc.oneof(fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 })), fc.jsonValue({ maxDepth: 1 })),
    occurred_at: fc.option(
      fc.oneof(
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        ascii,
      ),
      { nil: undefined },
    ),
  },
  { requiredKeys: [] },
);
const body = fc.oneof(
  { arbitrary: fc.oneof(signal, fc.array(signal, { maxLength: 3 })).map((b) => JSON.stringify(b)), weight: 2 },
  { arbitrary: mutatedTrigger.map((b) => JSON.stringify(b)), weight: 4 },
  { arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)), weight: 2 },
  { arbitrary: fc.string({ maxLength: 60 }), weight: 1 },
  { arbitrary: fc.constant(''), weight: 1 },
);
const contentType = fc.oneof(
  { arbitrary: fc.constantFrom('application/json', 'application/merge-patch+json'), weight: 6 },
  {
    arbitrary: fc.constantFrom('text/plain', 'application/json; charset=latin1', 'application/json; charset=utf-16', 'multipart/form-data'),
    weight: 1,
  },
  { arbitrary: ascii, weight: 1 },
);
const headers = fc.record(
  {
    'if-match': fc.option(fc.oneof(ascii, fc.constantFrom('"1"', '*', 'W/"1"', '"99999999999999999999"')), { nil: undefined, freq: 3 }),
    authorization: fc.option(ascii, { nil: undefined, freq: 3 }),
    'x-request-id': fc.option(ascii, { nil: undefined }),
    'content-type': contentType,
  },
  { requiredKeys: ['content-type'] },
);

const method = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD');
const validSignal = fc.record({
  signal: fc.constantFrom('post_save', 'pre_delete'),
  app_label: fc.constant('shop'),
  model_name: fc.constant('order'),
  instance: fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 })),
});
/** Requests whose method, path and body family fit one route, so validation and handlers are reached. */
const coherent = fc.oneof(
  fc.tuple(
    fc.constant('POST'),
    fc.constant('/api/action-triggers'),
    fc
      .oneof(
        mutatedTrigger,
        fc.constant(null).map(() => aTrigger()),
      )
      .map((b) => JSON.stringify(b)),
  ),
  fc.tuple(
    fc.constantFrom('PUT', 'PATCH'),
    fc.constant('/api/action-triggers/EXISTING'),
    mutatedTrigger.map((b) => JSON.stringify(b)),
  ),
  fc.tuple(
    fc.constant('POST'),
    fc.constant('/api/signals'),
    fc.oneof(signal, validSignal, fc.array(fc.oneof(signal, validSignal), { maxLength: 3 })).map((b) => JSON.stringify(b)),
  ),
  fc.tuple(
    fc.constant('GET'),
    fc.constantFrom('/api/signals/EXISTING', '/api/action-triggers?limit=2', '/api/action-triggers/EXISTING/history'),
    fc.constant(''),
  ),
);
const anyRequest = fc.oneof({ arbitrary: coherent, weight: 1 }, { arbitrary: fc.tuple(method, path, body), weight: 1 });

test('1,500 generated requests: never a 5xx, always a JSON or problem body', async () => {
  const seen = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(anyRequest, headers, async ([verb, url, raw], hdrs) => {
      let req = request(t.app)[verb.toLowerCase() as 'get'](url.replace('EXISTING', existingId));
      for (const [k, v] of Object.entries(hdrs)) if (v !== undefined) req = req.set(k, v);
      const res = verb === 'GET' || verb === 'HEAD' || verb === 'OPTIONS' ? await req : await req.send(raw);
      seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
      expect(res.status).toBeLessThan(500);
      if (res.status >= 400 && verb !== 'HEAD') expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    }),
    { numRuns: 1500 },
  );
  // The generator must reach past validation too, or this test proves little.
  expect([...seen.keys()]).toEqual(expect.arrayContaining([200, 201, 202, 400, 404, 405, 415]));
}, 120000);
