import { AddressInfo } from 'node:net';
import request from 'supertest';
import { createHttpServer, listen } from '../../../src/http/server';
import { recordAlert } from '../../../src/alerts/raise';
import type { Alert } from '../../../src/model/alerts/alert';
import { startTestApp } from '../../support/test-app';
import { openSse } from '../../support/sse-client';
import { startReceiver } from '../../support/receiver';
import { newSecret } from '../../support/alerts';
import { createMetrics } from '../../../src/observability/metrics';
import { createLogger } from '../../../src/kernel/logger';

/**
 * The alerts as the API serves them: `GET /api/alerts` in pages (as the audit feed: resume from
 * `next`), the same live over Server-Sent Events (the alert type as `event`, resumable with
 * `Last-Event-ID`), `GET /api/alerts/recent` with the sinks (never a secret or a URL's path),
 * and each bad parameter named. Alerts are recorded straight into a real store here.
 */
const alertN = (n: number): Alert => ({
  id: `alrt_test${n}`,
  type: n % 2 ? 'action.exhausted' : 'action.recovered',
  occurred_at: new Date(1_800_000_000_000 + n).toISOString(),
  summary: `alert ${n}`,
  trigger_id: 't1',
  link: '/admin/#/triggers/t1',
});

test('the feed pages and streams every alert once, in order; recent shows the sinks without their secrets; bad parameters are 400 naming them', async () => {
  const t = await startTestApp({
    alerts: {
      sinks: [
        { name: 'chat', type: 'slack', url: 'https://hooks.slack.example/services/T0/B0/s3cr3t-token' },
        {
          name: 'mail',
          type: 'email',
          smtp: { host: 'smtp.example.com', starttls: true },
          from: 'at@example.com',
          to: ['ops@example.com'],
        },
      ],
    },
  });
  const server = await listen(
    createHttpServer(t.app, { headersMs: 5000, requestMs: 5000, keepAliveMs: 1000, checkIntervalMs: 1000 }),
    '127.0.0.1',
    0,
  );
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/alerts/stream`;
  try {
    for (let n = 1; n <= 3; n++) expect(await recordAlert(t.store, alertN(n))).toBe(true);
    // The same alert recorded again (a restart before the progress was saved) is one alert.
    expect(await recordAlert(t.store, alertN(1))).toBe(false);

    const first = (await request(t.app).get('/api/alerts?limit=2').expect(200)).body as { alerts: Alert[]; next: string };
    expect(first.alerts.map((a) => a.id)).toEqual(['alrt_test1', 'alrt_test2']);
    const rest = (await request(t.app).get(`/api/alerts?after=${first.next}`).expect(200)).body as { alerts: Alert[]; next: string };
    expect(rest.alerts.map((a) => a.summary)).toEqual(['alert 3']);

    const live = await openSse(url);
    await live.waitFor((m) => m.length === 3);
    await recordAlert(t.store, alertN(4));
    await live.waitFor((m) => m.length === 4);
    live.close();
    expect(live.messages.map((m) => m.event)).toEqual(['action.exhausted', 'action.recovered', 'action.exhausted', 'action.recovered']);
    const resumed = await openSse(url, { 'Last-Event-ID': live.messages[1]!.id! });
    await resumed.waitFor((m) => m.length === 2);
    resumed.close();
    expect(resumed.messages.map((m) => (JSON.parse(m.data) as Alert).id)).toEqual(['alrt_test3', 'alrt_test4']);

    const recent = (await request(t.app).get('/api/alerts/recent?limit=2').expect(200)).body as {
      sinks: Array<Record<string, unknown>>;
      alerts: Array<Alert & { outcomes: unknown[] }>;
    };
    expect(recent.alerts.map((a) => [a.id, a.outcomes])).toEqual([
      ['alrt_test4', []],
      ['alrt_test3', []],
    ]);
    expect(recent.sinks).toEqual([
      { name: 'chat', type: 'slack', target: 'https://hooks.slack.example', events: expect.any(Array), max_per_minute: 6 },
      {
        name: 'mail',
        type: 'email',
        target: 'smtp://smtp.example.com:587',
        to: ['ops@example.com'],
        events: expect.any(Array),
        max_per_minute: 6,
      },
    ]);
    expect(JSON.stringify(recent)).not.toContain('s3cr3t');

    const pathOf = async (path: string) =>
      ((await request(t.app).get(path).expect(400)).body as { errors: Array<{ path: string }> }).errors[0]!.path;
    expect(await pathOf('/api/alerts?after=x')).toBe('query.after');
    expect(await pathOf('/api/alerts/stream?after=-1')).toBe('query.after');
    expect(await pathOf('/api/alerts/recent?limit=0')).toBe('query.limit');
    expect(await pathOf('/api/alerts/recent?limit=201')).toBe('query.limit');
    expect(await pathOf('/api/alerts/recent?since=1')).toBe('query.since');
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await t.close();
  }
});

test('a sink that refuses an alert for good (400): recorded not_sent with why, counted, logged, and no alert about it', async () => {
  const sink = await startReceiver();
  sink.respond(() => ({ status: 400, body: 'no' }));
  const metrics = createMetrics({ defaultMetrics: false });
  const lines: string[] = [];
  const t = await startTestApp(
    { alerts: { sinks: [{ name: 'ops', type: 'webhook', url: sink.url('/alerts'), secret: newSecret() }] } },
    undefined,
    undefined,
    {},
    metrics,
    undefined,
    createLogger('info', (line) => lines.push(line)),
  );
  try {
    // Recorded once alerting holds its lease: it follows from the head it saw then.
    await new Promise((r) => setTimeout(r, 500));
    await recordAlert(t.store, alertN(9));
    let recent: { alerts: Array<{ id: string; outcomes: Array<{ outcome: string; error?: string }> }> } = { alerts: [] };
    for (const end = Date.now() + 10_000; recent.alerts[0]?.outcomes.length !== 1 && Date.now() < end;) {
      await new Promise((r) => setTimeout(r, 100));
      recent = (await request(t.app).get('/api/alerts/recent').expect(200)).body as typeof recent;
    }
    expect(recent.alerts.map((a) => [a.id, a.outcomes.map((o) => o.outcome)])).toEqual([['alrt_test9', ['not_sent']]]);
    expect(recent.alerts[0]!.outcomes[0]!.error).toContain('400');
    expect(sink.count('/alerts')).toBe(1);
    expect(await metrics.registry.getSingleMetricAsString('action_triggers_alerts_sent_total')).toContain('outcome="given_up"} 1');
    expect(lines.filter((l) => l.includes('never took a message'))).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 500));
    const feed = (await request(t.app).get('/api/alerts').expect(200)).body as { alerts: Alert[] };
    expect(feed.alerts.map((a) => a.id)).toEqual(['alrt_test9']);
  } finally {
    await t.close();
    await sink.close();
  }
});
