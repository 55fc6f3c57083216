import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTracing } from '../../../src/observability/tracing';
import { BROKER_TARGETS, BrokerTarget } from '../../support/brokers/targets';
import { startOtlpReceiver } from '../../support/otlp-receiver';
import { startReceiver } from '../../support/receiver';
import { startServerProcess, stopServerProcess, ServerProcess } from '../../support/server-process';
import { testServers } from '../../support/servers';
import { aTrigger, tempDir } from '../../support/test-app';

const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;
const BROKER_TYPES = Object.keys(BROKER_TARGETS);

const post = async (url: string, body: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

const waitUntil = async (check: () => boolean, what: string, timeoutMs = 30_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

/** The webhook's own signing secret: it must never reach a span or a log line. */
const HOOK_SECRET = `whsec_${Buffer.from('tracing-test-hook-secret-0123456789').toString('base64')}`;

/** The service as `npm start` runs it (API, relay and worker in one process), on its own data and task queue. */
const startService = (dir: string, env: Record<string, string>, brokers: Record<string, BrokerTarget['broker']> = {}) => {
  const configFile = join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify({ allow_private_targets: true, brokers, signing_secrets: { hook: [{ secret: HOOK_SECRET }] } }));
  return startServerProcess(
    { DATA_DIR: dir, ACTION_TRIGGERS_CONFIG: configFile, TEMPORAL_TASK_QUEUE: `tracing-${Date.now()}`, ...env },
    120_000,
  );
};

/** A trigger sending to the receiver, then one signal accepted under a request id we choose. */
const sendSignal = async (server: ServerProcess, hookUrl: string, requestId: string, queues: string[] = []) => {
  const trigger = aTrigger({
    webhooks: [{ url: hookUrl, http_method: 'POST', signing_secret: 'hook' }],
    msg_broker_queues: queues.map((name) => ({ name })),
  });
  expect((await post(`${server.url}/api/action-triggers`, trigger)).status).toBe(201);
  const accepted = await post(
    `${server.url}/api/signals`,
    { signal: 'post_save', app_label: 'shop', model_name: 'order', instance: { id: 1 } },
    { 'x-request-id': requestId },
  );
  expect(accepted.status).toBe(202);
  return String(accepted.body.id);
};

test('tracing on: one trace from POST /api/signals through the workflow and activities to the webhook and each broker, whose receivers get its traceparent; every log line of the signal has its ids', async () => {
  const dir = tempDir();
  const otlp = await startOtlpReceiver();
  const hooks = await startReceiver();
  const targets = Object.fromEntries(await Promise.all(BROKER_TYPES.map(async (type) => [type, await BROKER_TARGETS[type]!()] as const)));
  let server: ServerProcess | undefined;
  try {
    const brokers = Object.fromEntries(BROKER_TYPES.map((type) => [type, targets[type]!.broker]));
    server = await startService(dir, { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint, OTEL_BSP_SCHEDULE_DELAY: '100' }, brokers);
    const signalId = await sendSignal(server, hooks.url('/hook'), 'req-trace-1', BROKER_TYPES);
    await hooks.waitFor(() => hooks.on('/hook').length === 1);
    const traceparent = String(hooks.on('/hook')[0]!.headers.traceparent);
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    const traceId = traceparent.split('-')[1]!;

    const names = () => new Set(otlp.spans.filter((s) => s.traceId === traceId).map((s) => `${s.kind}:${s.name}`));
    const expected = [
      `${SERVER}:POST /api/signals`,
      'StartWorkflow:dispatchSignal',
      'RunWorkflow:dispatchSignal',
      'RunActivity:deliverWebhook',
      `${CLIENT}:POST`,
    ];
    const has = (want: string) => [...names()].some((n) => n === want || n.endsWith(`:${want}`));
    await waitUntil(() => expected.every(has), `spans ${expected.join(', ')} in trace ${traceId}; got ${[...names()].join(', ')}`);
    // Every broker message carries the trace too (a header, attribute or stream field named traceparent).
    for (const type of BROKER_TYPES) {
      const [message] = await targets[type]!.read(1);
      expect([type, message?.traceparent?.split('-')[1]]).toEqual([type, traceId]);
    }
    await waitUntil(() => BROKER_TYPES.every((type) => has(`${PRODUCER}:send ${type}`)), 'a PRODUCER span per broker');
    // The workflow's start is a child of the API's span: the trace went through the store and the relay.
    const ofTrace = otlp.spans.filter((s) => s.traceId === traceId);
    const api = ofTrace.find((s) => s.kind === SERVER)!;
    expect(ofTrace.find((s) => s.name === 'StartWorkflow:dispatchSignal')!.parentSpanId).toBe(api.spanId);
    // The receiver's traceparent names the webhook's CLIENT span itself.
    const client = otlp.spans.find((s) => s.traceId === traceId && s.kind === CLIENT)!;
    expect(traceparent.split('-')[2]).toBe(client.spanId);
    // Nothing of the URL's path or query, and no header, in the client span's attributes.
    expect(client.attributes.map((a) => a.key).sort()).toEqual([
      'http.request.method',
      'http.response.status_code',
      'server.address',
      'server.port',
      'url.scheme',
    ]);

    // Item 4: one grep for the signal id finds intake, relay and attempt lines, each with both ids.
    const lines = server
      .output()
      .split('\n')
      .filter((l) => l.includes(signalId))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.msg)).toEqual(expect.arrayContaining(['signal accepted', 'dispatch started', 'delivered']));
    for (const l of lines) expect([l.msg, l.signal_id, l.request_id]).toEqual([l.msg, signalId, 'req-trace-1']);

    // The webhook was signed with its own secret, which no span and no log line holds.
    expect(String(hooks.on('/hook')[0]!.headers['webhook-signature'])).toMatch(/^v1,/);
    const secretPart = HOOK_SECRET.slice('whsec_'.length);
    expect(JSON.stringify(otlp.spans)).not.toContain(secretPart);
    expect(server.output()).not.toContain(secretPart);
  } finally {
    if (server) await stopServerProcess(server, 'SIGKILL');
    await Promise.all([otlp.close(), hooks.close(), ...Object.values(targets).map((t) => t.close())]);
    rmSync(dir, { recursive: true, force: true });
  }
}, 180_000);

test('tracing off (no OTEL_EXPORTER_OTLP_ENDPOINT): nothing registered, no traceparent sent, the log lines still carry the ids', async () => {
  expect(startTracing({}).enabled).toBe(false);
  const dir = tempDir();
  const hooks = await startReceiver();
  let server: ServerProcess | undefined;
  try {
    server = await startService(dir, { OTEL_EXPORTER_OTLP_ENDPOINT: '', WORKFLOW_BUNDLE_PATH: testServers().workflowBundlePath });
    const signalId = await sendSignal(server, hooks.url('/hook'), 'req-untraced-1');
    await hooks.waitFor(() => hooks.on('/hook').length === 1);
    expect(hooks.on('/hook')[0]!.headers.traceparent).toBeUndefined();
    const deliveredLines = () =>
      server!
        .output()
        .split('\n')
        .filter((l) => l.includes('"msg":"delivered"'));
    await waitUntil(() => deliveredLines().length > 0, 'the delivered line');
    const delivered = deliveredLines().map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(delivered.map((l) => [l.signal_id, l.request_id])).toEqual([[signalId, 'req-untraced-1']]);
  } finally {
    if (server) await stopServerProcess(server, 'SIGKILL');
    await hooks.close();
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
