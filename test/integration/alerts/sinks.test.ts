import { Webhook } from 'standardwebhooks';
import { SinkError, Sink } from '../../../src/model/alerts/alert';
import { createWebhookSink } from '../../../src/alerts/sinks/webhook';
import { createSinks } from '../../../src/alerts/sinks';
import { freePort } from '../../support/free-port';
import { startReceiver, Received, Receiver } from '../../support/receiver';
import { asMessage, EVERY_TYPE, manyAlerts, newSecret, rejectionOf, sampleAlert, sampleDigest } from '../../support/alerts';

/**
 * The webhook sink against a real loopback receiver: signed so that the official Standard
 * Webhooks library verifies it, `webhook-id` the alert's id, and each kind of answer classified
 * (2xx taken, 5xx and 429 again later, 4xx and redirects never).
 */
const SECRET = newSecret();
const PATH = '/hooks/ops';
let rx: Receiver;
let sink: Sink;
const never = new AbortController().signal;

beforeAll(async () => {
  rx = await startReceiver();
  sink = createWebhookSink({ name: 'ops', type: 'webhook', url: rx.url(PATH), secret: SECRET, events: EVERY_TYPE, maxPerMinute: 6 });
});
afterAll(async () => {
  await sink?.close?.();
  await rx?.close();
});

const verified = (r: Received) => new Webhook(SECRET).verify(r.body, r.headers as Record<string, string>);
const lastOn = (path: string) => rx.on(path).at(-1)!;
const failureOf = async (reply: { status: number; headers?: Record<string, string> }) => {
  rx.script(PATH, [reply]);
  const e = await rejectionOf(sink.send(asMessage(sampleAlert()), never));
  expect(e).toBeInstanceOf(SinkError);
  return e as SinkError;
};

test('an alert goes as a signed Standard Webhooks message, its id as webhook-id', async () => {
  const alert = sampleAlert();
  await sink.send(asMessage(alert), never);
  const r = lastOn(PATH);
  expect(r.method).toBe('POST');
  expect(r.headers['content-type']).toBe('application/json');
  expect(r.headers['webhook-id']).toBe(alert.id);
  expect(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
  expect(verified(r)).toEqual({ type: 'action.failing', timestamp: alert.occurred_at, data: alert });
  // Signed with another secret, it does not verify.
  expect(() => new Webhook(newSecret()).verify(r.body, r.headers as Record<string, string>)).toThrow();
});

test('a digest goes as alerts.digest with its id, summary and alerts', async () => {
  const digest = sampleDigest(manyAlerts(3));
  await sink.send(digest, never);
  const r = lastOn(PATH);
  expect(r.headers['webhook-id']).toBe(digest.id);
  expect(verified(r)).toEqual({
    type: 'alerts.digest',
    timestamp: digest.occurred_at,
    data: { id: digest.id, summary: digest.summary, alerts: digest.alerts },
  });
});

test('5xx is retryable; 429 waits as Retry-After says, capped at an hour; other 4xx is not retryable', async () => {
  expect(await failureOf({ status: 500 })).toMatchObject({ retryable: true, retryAfterMs: undefined, message: 'HTTP 500: ok' });
  expect(await failureOf({ status: 429, headers: { 'retry-after': '7' } })).toMatchObject({ retryable: true, retryAfterMs: 7000 });
  expect(await failureOf({ status: 503, headers: { 'retry-after': 'Wed, 21 Oct 2099 07:28:00 GMT' } })).toMatchObject({
    retryable: true,
    retryAfterMs: 3_600_000,
  });
  expect(await failureOf({ status: 408 })).toMatchObject({ retryable: true });
  expect(await failureOf({ status: 400 })).toMatchObject({ retryable: false, message: 'HTTP 400: ok' });
  expect(await failureOf({ status: 404 })).toMatchObject({ retryable: false });
});

test('a redirect is not followed: not retryable, and its target gets nothing', async () => {
  const e = await failureOf({ status: 302, headers: { location: rx.url('/elsewhere') } });
  expect(e).toMatchObject({ retryable: false, message: expect.stringContaining('redirects are not followed') });
  expect(rx.on('/elsewhere')).toHaveLength(0);
});

test('no server, or a cancelled send, is retryable', async () => {
  const closed = createWebhookSink({
    name: 'gone',
    type: 'webhook',
    url: `http://127.0.0.1:${await freePort()}/x`,
    secret: SECRET,
    events: EVERY_TYPE,
    maxPerMinute: 6,
  });
  expect(await rejectionOf(closed.send(asMessage(sampleAlert()), never))).toMatchObject({ retryable: true });
  await closed.close?.();

  rx.script(PATH, [{ status: 200, delayMs: 800 }]);
  const started = Date.now();
  const e = await rejectionOf(sink.send(asMessage(sampleAlert()), AbortSignal.timeout(100)));
  expect(e).toMatchObject({ retryable: true, message: 'request failed: cancelled' });
  expect(Date.now() - started).toBeLessThan(700);
});

test('createSinks makes each sink by its type', async () => {
  const common = { events: EVERY_TYPE, maxPerMinute: 6 };
  const sinks = createSinks([
    { ...common, name: 'a', type: 'webhook', url: rx.url('/a'), secret: SECRET },
    { ...common, name: 'b', type: 'slack', url: rx.url('/b') },
    {
      ...common,
      name: 'c',
      type: 'email',
      smtp: { host: '127.0.0.1', port: 2525, secure: false, starttls: true },
      from: 'a@b.c',
      to: ['d@e.f'],
    },
  ]);
  expect(sinks.map((s) => [s.name, s.type])).toEqual([
    ['a', 'webhook'],
    ['b', 'slack'],
    ['c', 'email'],
  ]);
  await Promise.all(sinks.map((s) => s.close?.()));
});
