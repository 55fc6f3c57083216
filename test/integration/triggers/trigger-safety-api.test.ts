import request from 'supertest';
import { aTrigger, BROKERS_CONFIG, startTestApp } from '../../support/test-app';

let t: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  t = await startTestApp({ ...BROKERS_CONFIG, webhook_url_patterns: ['https://hooks\\.example\\.com/', 'http://'] });
});
afterAll(async () => {
  await t.close();
});

const post = (body: object) => request(t.app).post('/api/action-triggers').send(body);
const webhook = (url: string, headers?: Record<string, string>) =>
  aTrigger({ webhooks: [{ url, http_method: 'POST', ...(headers ? { headers } : {}) }] });

test('a private, loopback or localhost target is refused at write time, in every spelling, with its field path', async () => {
  for (const url of [
    'http://[::ffff:127.0.0.1]:8080/',
    'http://[0:0:0:0:0:ffff:7f00:1]/',
    'http://[::ffff:0.0.0.0]/',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://127.1/',
    'http://localhost./',
    'http://Metadata.LOCALHOST/',
    'http://169.254.169.254/',
    'http://[fd00::1]/',
  ]) {
    const res = await post(webhook(url))
      .expect(400)
      .expect('content-type', /problem\+json/);
    expect([url, res.body.errors]).toEqual([
      url,
      [{ path: 'webhooks[0].url', message: expect.stringContaining('allow_private_targets is off') }],
    ]);
  }
});

test('a pattern admits a URL only from its start: the URL of another host carrying the allowed one is refused', async () => {
  const res = await post(webhook('https://not-allowed.example/?next=https://hooks.example.com/')).expect(400);
  expect(res.body.errors).toEqual([{ path: 'webhooks[0].url', message: 'is not allowed by webhook_url_patterns' }]);
  await post(webhook('https://hooks.example.com/orders')).expect(201);
});

test('header injection, bad names and client-owned headers are refused at write time, on create and on patch', async () => {
  const res = await post(
    webhook('https://hooks.example.com/', {
      'X-Trace': 'a\r\nX-Admin: yes',
      Host: 'internal',
      'Bad Name': 'v',
      'Proxy-Authorization': 'x',
    }),
  ).expect(400);
  expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
    'webhooks[0].headers.Bad Name',
    'webhooks[0].headers.Host',
    'webhooks[0].headers.Proxy-Authorization',
    'webhooks[0].headers.X-Trace',
  ]);
  expect(JSON.stringify(res.body)).not.toContain('X-Admin');

  const created = (await post(webhook('https://hooks.example.com/')).expect(201)).body;
  const patched = await request(t.app)
    .patch(`/api/action-triggers/${created.id}`)
    .set('Content-Type', 'application/merge-patch+json')
    .send(
      JSON.stringify({
        webhooks: [{ url: 'https://hooks.example.com/', http_method: 'POST', headers: { 'Transfer-Encoding': 'chunked' } }],
      }),
    )
    .expect(400);
  expect(patched.body.errors).toEqual([
    { path: 'webhooks[0].headers.Transfer-Encoding', message: expect.stringContaining('set by the HTTP client') },
  ]);
});

test("a trigger cannot point a broker at another host: conn_details are the operator's unless trigger_overrides lists them", async () => {
  const res = await post(
    aTrigger({
      msg_broker_queues: [{ name: 'orders', conn_details: { url: 'amqp://attacker.example:5672' }, parameters: { queue: 'x' } }],
    }),
  ).expect(400);
  expect(res.body.errors).toEqual([
    { path: 'msg_broker_queues[0].conn_details.url', message: 'broker orders does not let triggers set conn_details.url' },
  ]);
});
