import { randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { freePort } from '../../support/free-port';
import { historyText } from '../../support/histories';
import { startOtlpReceiver } from '../../support/otlp-receiver';
import { startReceiver } from '../../support/receiver';
import { startServerProcess, stopServerProcess, ServerProcess } from '../../support/server-process';
import { testServers } from '../../support/servers';
import { tempDir } from '../../support/test-app';
import { triggerBody } from '../../support/trigger-body';

/**
 * A dynamic value rendered into a broker setting or a header can come back in what a broker or
 * client says when it refuses it (`queue name 'amq.<value>' contains reserved prefix`). Whatever
 * the attempt's error says, the value must reach none of: the action's `last_error`, the
 * service's log output, the workflow history, the exported spans. The service runs as
 * `npm start` does, tracing on, against the real servers.
 */
const ERROR = 2; // OTLP status code
const secrets = {
  AT_TEST_LEAK_RABBIT: `leak-rabbit-${randomUUID()}`,
  AT_TEST_LEAK_KAFKA: '', // a closed loopback port: kafkajs names the address it could not reach
  AT_TEST_LEAK_PUBSUB: `leak-pubsub-${randomUUID()}`,
  AT_TEST_LEAK_HOOK: `leak-hook-${randomUUID()}`,
};
type SecretName = keyof typeof secrets;

let dir: string;
let server: ServerProcess | undefined;
let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
let hooks: Awaited<ReturnType<typeof startReceiver>>;
let temporal: Connection;

beforeAll(async () => {
  secrets.AT_TEST_LEAK_KAFKA = `127.0.0.1:${await freePort()}`;
  dir = tempDir();
  [otlp, hooks] = await Promise.all([startOtlpReceiver(), startReceiver({ status: 503 })]);
  const s = testServers();
  const configFile = join(dir, 'config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      allow_private_targets: true,
      retry: { initial_interval_secs: 0.2, backoff_coefficient: 2, max_interval_secs: 1, max_attempts: 2 },
      dynamic_values: { allowed_paths: Object.keys(secrets).map((name) => `env.${name}`) },
      brokers: {
        rabbit: { broker_type: 'rabbitmq', conn_details: { url: s.rabbit.url }, params: { queue: 'unused' } },
        // Triggers may not set conn_details by default: these values are the operator's.
        kafka: { broker_type: 'kafka', conn_details: { bootstrap_servers: '{{ env.AT_TEST_LEAK_KAFKA }}' }, params: { topic: 'unused' } },
        pubsub: {
          broker_type: 'gcp_pubsub',
          conn_details: {
            project: s.brokers.pubsub.projectId,
            topic: 't/{{ env.AT_TEST_LEAK_PUBSUB }}',
            emulator_host: s.brokers.pubsub.apiEndpoint,
          },
          params: {},
        },
      },
    }),
  );
  server = await startServerProcess(
    {
      DATA_DIR: dir,
      ACTION_TRIGGERS_CONFIG: configFile,
      TEMPORAL_TASK_QUEUE: `masking-${randomUUID()}`,
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      ...secrets,
    },
    120_000,
  );
  temporal = await Connection.connect({ address: s.temporalAddress });
}, 150_000);
afterAll(async () => {
  if (server) await stopServerProcess(server, 'SIGKILL');
  await Promise.all([otlp?.close(), hooks?.close(), temporal?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

const api = async (path: string, body?: unknown) => {
  const res = await fetch(
    `${server!.url}${path}`,
    body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
  );
  return { status: res.status, text: await res.text() };
};

const waitUntil = async <A>(get: () => A | Promise<A>, done: (a: A) => boolean, what: string, timeoutMs = 60_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const a = await get();
    if (done(a)) return a;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
};

interface Span {
  traceId: string;
  name: string;
  attributes: Array<{ key: string; value: { stringValue?: string } }>;
  status?: { code?: number; message?: string };
}

/** The spans of the trace that started this workflow. */
const spansOf = (workflowId: string) => {
  const all = otlp.spans as unknown as Span[];
  const start = all.find(
    (s) =>
      s.name.startsWith('StartWorkflow:') && s.attributes.some((a) => a.key === 'temporalWorkflowId' && a.value.stringValue === workflowId),
  );
  return start ? all.filter((s) => s.traceId === start.traceId) : [];
};

const cases: Array<[string, SecretName, Record<string, unknown>]> = [
  [
    'rabbitmq: a queue name the broker refuses, quoting it',
    'AT_TEST_LEAK_RABBIT',
    { msg_broker_queues: [{ name: 'rabbit', parameters: { queue: 'amq.{{ env.AT_TEST_LEAK_RABBIT }}' }, timeout_secs: 5 }] },
  ],
  [
    'kafka: bootstrap servers the client cannot reach, naming them',
    'AT_TEST_LEAK_KAFKA',
    { msg_broker_queues: [{ name: 'kafka', timeout_secs: 5 }] },
  ],
  [
    'gcp_pubsub: a topic name the server refuses, quoting it',
    'AT_TEST_LEAK_PUBSUB',
    { msg_broker_queues: [{ name: 'pubsub', timeout_secs: 5 }] },
  ],
  [
    'webhook: a header and body holding the value, to a receiver that fails',
    'AT_TEST_LEAK_HOOK',
    {
      webhooks: [{ url: '<hook>', http_method: 'POST', headers: { Authorization: 'Bearer {{ env.AT_TEST_LEAK_HOOK }}' }, timeout_secs: 5 }],
      payload: { token: '{{ env.AT_TEST_LEAK_HOOK }}' },
    },
  ],
];

test.each(cases)(
  '%s: the value reaches no error, log line, history or span',
  async (_, name, actions) => {
    const secret = secrets[name];
    const model = `leak-${name.toLowerCase()}`;
    const trigger = JSON.parse(JSON.stringify(triggerBody({ model, ...actions })).replace('<hook>', hooks.url(`/${model}`)));
    const written = await api('/api/action-triggers', trigger);
    expect(written.status === 201 ? 201 : written.text).toBe(201);
    const accepted = await api('/api/signals', { signal: 'post_save', app_label: 'shop', model_name: model, instance: { id: 1 } });
    expect(accepted.status).toBe(202);
    const { id, workflow_id: workflowId } = JSON.parse(accepted.text) as { id: string; workflow_id: string };

    const answer = await waitUntil(
      () => api(`/api/signals/${id}`),
      (r) => (JSON.parse(r.text) as { state: string }).state === 'completed',
      `signal ${id} to complete`,
    );
    const action = (JSON.parse(answer.text) as { actions: Array<{ state: string; attempts: number; last_error: string }> }).actions[0]!;
    expect(action).toMatchObject({ state: 'failed', attempts: 2, last_error: expect.any(String) });
    if (name === 'AT_TEST_LEAK_HOOK') expect(hooks.on(`/${model}`)[0]!.headers.authorization).toBe(`Bearer ${secret}`); // the value was sent

    // Every place is read where the attempt's error lands, so a leak there would show.
    const spans = await waitUntil(
      () => spansOf(workflowId),
      (ss) => ss.filter((s) => s.name.startsWith('RunActivity:') && s.status?.code === ERROR).length >= 2,
      "the failed attempts' spans",
    );
    expect(spans.some((s) => s.status?.message === action.last_error)).toBe(true);
    const history = historyText(await new Client({ connection: temporal }).workflow.getHandle(workflowId).fetchHistory());
    expect(history).toContain(JSON.stringify(action.last_error).slice(1, -1));
    const logs = server!.output();
    const failed = logs.split('\n').filter((l) => l.includes(id) && l.includes('"msg":"attempt failed"'));
    expect(failed.map((l) => (JSON.parse(l) as { reason: string }).reason)).toEqual([action.last_error, action.last_error]);

    const places = { 'GET /api/signals/<id>': answer.text, logs, history, spans: JSON.stringify(otlp.spans) };
    expect(
      Object.entries(places)
        .filter(([, text]) => text.includes(secret))
        .map(([where]) => where),
    ).toEqual([]);
  },
  90_000,
);
