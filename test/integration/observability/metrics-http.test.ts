import { randomUUID } from 'node:crypto';
import { AddressInfo } from 'node:net';
import request from 'supertest';
import { createMetrics } from '../../../src/observability/metrics';
import { createHttpServer, listen } from '../../../src/http/server';
import { parsePrometheusText, valueOf } from '../../support/prom-text';
import { startTestApp } from '../../support/test-app';
import { storeTrigger } from '../../support/store-trigger';
import { triggerBody } from '../../support/trigger-body';

const HTTP = 'action_triggers_http_requests_total';

test('1,000 requests to random paths and random trigger ids add a bounded number of series, labelled by route template', async () => {
  const t = await startTestApp({}, undefined, undefined, {}, createMetrics());
  const server = await listen(createHttpServer(t.app), '127.0.0.1', 0);
  try {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const methods = ['GET', 'DELETE', 'PATCH', 'PROPFIND'];
    for (let i = 0; i < 1000; i++) {
      const path = i % 2 === 0 ? `/api/action-triggers/${randomUUID()}` : `/${randomUUID()}/${i}?q=${randomUUID()}`;
      await fetch(`${base}${path}`, { method: methods[i % methods.length] }).then((r) => r.arrayBuffer());
    }
    const page = parsePrometheusText(await (await fetch(`${base}/metrics`)).text());
    const series = page.filter((s) => s.name === HTTP);
    expect(series.length).toBeLessThanOrEqual(12);
    expect(new Set(series.map((s) => s.labels.route))).toEqual(new Set(['/api/action-triggers/:id', 'unmatched']));
    expect(series.reduce((n, s) => n + s.value, 0)).toBe(1000);
    // A method outside HTTP's own set is one label value, not one per verb invented.
    expect(new Set(series.map((s) => s.labels.method))).toEqual(new Set(['GET', 'DELETE', 'PATCH', 'other']));
    expect(page.filter((s) => s.name === 'action_triggers_http_request_duration_seconds_count').length).toBeLessThanOrEqual(8);
  } finally {
    await new Promise((r) => server.close(r));
    await t.close();
  }
});

test('with API keys, /metrics needs the metrics:read scope', async () => {
  const t = await startTestApp(
    {
      api_keys: [
        { id: 'reader', key: 'reader-secret', scopes: ['triggers:read', 'triggers:write', 'signals:write'] },
        { id: 'prometheus', key: 'scrape-secret', scopes: ['metrics:read'] },
      ],
    },
    undefined,
    undefined,
    {},
    createMetrics(),
  );
  try {
    await request(t.app).get('/metrics').expect(401);
    await request(t.app).get('/metrics').set('authorization', 'Bearer reader-secret').expect(403);
    const page = await request(t.app).get('/metrics').set('authorization', 'Bearer scrape-secret').expect(200);
    expect(valueOf(parsePrometheusText(page.text), HTTP, { route: '/metrics', method: 'GET', status: '403' })).toBe(1);
    await request(t.app).post('/metrics').set('authorization', 'Bearer scrape-secret').expect(405);
  } finally {
    await t.close();
  }
});

test('with metrics off there is no /metrics page, and the OpenAPI document has none; with them on, it has', async () => {
  const t = await startTestApp();
  const on = await startTestApp({}, undefined, undefined, {}, createMetrics({ defaultMetrics: false }));
  try {
    await request(t.app).get('/metrics').expect(404);
    expect((await request(t.app).get('/api/openapi.json').expect(200)).body.paths['/metrics']).toBeUndefined();
    expect(Object.keys((await request(on.app).get('/api/openapi.json').expect(200)).body.paths['/metrics'])).toEqual(['get']);
  } finally {
    await t.close();
    await on.close();
  }
});

test('projection lag: the trigger events a stopped projection has not applied, and for how long', async () => {
  const metrics = createMetrics({ defaultMetrics: false });
  const t = await startTestApp({}, undefined, undefined, {}, metrics);
  try {
    await storeTrigger(t, triggerBody());
    const lag = async () => {
      const page = parsePrometheusText((await metrics.render()).body);
      return [valueOf(page, 'action_triggers_projection_lag_events'), valueOf(page, 'action_triggers_projection_lag_seconds')];
    };
    expect(await lag()).toEqual([0, 0]);
    await t.projection.stop();
    for (let i = 0; i < 3; i++) {
      await storeTrigger({ store: t.store, projection: { ...t.projection, waitFor: async () => true } }, triggerBody());
    }
    await new Promise((r) => setTimeout(r, 300));
    const [events, seconds] = await lag();
    expect(events).toBe(3);
    expect(seconds).toBeGreaterThanOrEqual(0.3);
  } finally {
    await t.close();
  }
});
