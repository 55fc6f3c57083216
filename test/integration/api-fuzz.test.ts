import fc from 'fast-check';
import request from 'supertest';
import { aTrigger, BROKERS_CONFIG, startTestApp } from '../support/test-app';

/**
 * No malformed body, header or path may produce a 5xx. 1,500 generated requests against the
 * real app on a real SQLite store.
 */
let t: Awaited<ReturnType<typeof startTestApp>>;
let existingId: string;
beforeAll(async () => {
  t = await startTestApp(BROKERS_CONFIG);
  existingId = (await request(t.app).post('/api/action-triggers').send(aTrigger()).expect(201)).body.id;
});
afterAll(async () => { await t.close(); });

const ascii = fc.string({ unit: 'grapheme-ascii', maxLength: 40 });
const segment = fc.oneof(
  fc.string({ maxLength: 20 }).map(encodeURIComponent), fc.uuid(),
  fc.constantFrom('%', '%E0%A4%A', '%00', '..', '%2F', 'history', ''), fc.constant('EXISTING'),
);
const randomPath = fc.tuple(fc.constantFrom('/api/action-triggers', '/api', '/', '/api/signals'), fc.array(segment, { maxLength: 3 }), fc.option(fc.dictionary(fc.string({ maxLength: 8 }).map(encodeURIComponent), fc.oneof(ascii.map(encodeURIComponent), fc.constantFrom('true', '0', '1001', '-1'))), { nil: undefined }))
  .map(([base, segs, query]) => {
    const p = [base, ...segs].join('/').replace(/\/+/g, '/');
    const q = query ? Object.entries(query).map(([k, v]) => `${k}=${v}`).join('&') : '';
    return q ? `${p}?${q}` : p;
  });
const path = fc.oneof(
  { arbitrary: fc.constantFrom('/api/action-triggers', '/api/action-triggers/EXISTING', '/api/action-triggers/EXISTING/history'), weight: 5 },
  { arbitrary: randomPath, weight: 3 },
);

const fields = ['config_signals', 'content_types', 'webhooks', 'msg_broker_queues', 'active', 'payload', 'id', 'version'];
const mutatedTrigger = fc.tuple(fc.constantFrom(...fields), fc.jsonValue(), fc.constantFrom('top', 'item', 'deep'))
  .map(([field, value, where]) => {
    const base = aTrigger() as Record<string, unknown>;
    if (where === 'top') return { ...base, [field]: value };
    if (where === 'item') return { ...base, [field]: [value] };
    return { ...base, webhooks: [{ url: 'https://hooks.example.com/', http_method: 'POST', [field]: value }], msg_broker_queues: [{ name: 'orders', parameters: value }] };
  });
const body = fc.oneof(
  { arbitrary: mutatedTrigger.map((b) => JSON.stringify(b)), weight: 4 },
  { arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)), weight: 2 },
  { arbitrary: fc.string({ maxLength: 60 }), weight: 1 },
  { arbitrary: fc.constant(''), weight: 1 },
);
const contentType = fc.oneof(
  { arbitrary: fc.constantFrom('application/json', 'application/merge-patch+json'), weight: 6 },
  { arbitrary: fc.constantFrom('text/plain', 'application/json; charset=latin1', 'application/json; charset=utf-16', 'multipart/form-data'), weight: 1 },
  { arbitrary: ascii, weight: 1 },
);
const headers = fc.record({
  'if-match': fc.option(fc.oneof(ascii, fc.constantFrom('"1"', '*', 'W/"1"', '"99999999999999999999"')), { nil: undefined, freq: 3 }),
  authorization: fc.option(ascii, { nil: undefined, freq: 3 }),
  'x-request-id': fc.option(ascii, { nil: undefined }),
  'content-type': contentType,
}, { requiredKeys: ['content-type'] });

test('1,500 generated requests: never a 5xx, always a JSON or problem body', async () => {
  const seen = new Map<number, number>();
  await fc.assert(fc.asyncProperty(
    fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'), path, body, headers,
    async (method, url, raw, hdrs) => {
      let req = request(t.app)[method.toLowerCase() as 'get'](url.replace('EXISTING', existingId));
      for (const [k, v] of Object.entries(hdrs)) if (v !== undefined) req = req.set(k, v);
      const res = method === 'GET' || method === 'HEAD' || method === 'OPTIONS' ? await req : await req.send(raw);
      seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
      expect(res.status).toBeLessThan(500);
      if (res.status >= 400 && method !== 'HEAD') expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    }), { numRuns: 1500 });
  // The generator must reach past validation too, or this test proves little.
  expect([...seen.keys()]).toEqual(expect.arrayContaining([200, 201, 400, 404, 405, 412, 415]));
}, 120000);
