import { ChildProcess } from 'node:child_process';
import { Client } from 'pg';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PostgresServer, startPostgres, stopPostgres } from '../../support/brokers/postgres';
import { TEST_RETRY } from '../../support/dispatch-harness';
import { makeTestNetwork, TestNetwork } from '../../support/netns';
import { Receiver, startReceiver } from '../../support/receiver';
import { ServerProcess, startServerProcess, stopServerProcess } from '../../support/server-process';
import { testServers } from '../../support/servers';
import { forwardTcp } from '../../support/tcp-forward';
import { tempDir } from '../../support/test-app';
import { killProcess, startWorkerProcess } from '../../support/worker-process';
import { triggerBody } from '../../support/trigger-body';

/**
 * Two hosts (network namespaces on a bridge), each running the API and a worker with its own
 * data folder (its read model), sharing one PostgreSQL store and one Temporal server, reached
 * on the bridge as the receiver is. One host is killed with SIGKILL mid-stream.
 */
const KEY = 'two-hosts-key';
const SIGNALS = 2000;
const LEASE_MS = 5000; // the relay's default lease

let net: TestNetwork;
let pg: PostgresServer;
let temporal: Awaited<ReturnType<typeof forwardTcp>>;
let rx: Receiver;
let env: Record<string, string>;
interface Host {
  name: string;
  exec: string[];
  dir: string;
  api?: ServerProcess;
  worker?: ChildProcess;
}
let hosts: Host[];

const headers = { 'content-type': 'application/json', authorization: `Bearer ${KEY}` };
const startApi = async (h: Host, address: string) => {
  h.api = await startServerProcess({ ...env, DATA_DIR: h.dir, HOST: address }, 60_000, ['--role=api'], h.exec);
};
const relayOf = async (h: Host) => {
  const ready = (await (await fetch(`${h.api!.url}/readyz`, { signal: AbortSignal.timeout(2000) })).json()) as {
    dispatch?: { relay?: string };
  };
  return ready.dispatch?.relay;
};
const call = async (h: Host, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${h.api!.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

/** When the relay lease's holder starts with `prefix` (ms since the epoch), or Infinity if not by `deadline`. */
const untilHolder = async (prefix: string, deadline: number) => {
  const client = new Client({ connectionString: pg.url });
  await client.connect();
  try {
    while (Date.now() < deadline) {
      const { rows } = await client.query<{ data: string }>(
        "SELECT data FROM action_triggers.events WHERE stream_id = 'relay-signals' ORDER BY position DESC LIMIT 1",
      );
      if (rows[0] && (JSON.parse(rows[0].data) as { holder: string }).holder.startsWith(prefix)) return Date.now();
      await new Promise((r) => setTimeout(r, 50));
    }
    return Infinity;
  } finally {
    await client.end();
  }
};

beforeAll(async () => {
  net = makeTestNetwork(String(process.pid % 10_000), 2);
  pg = await startPostgres({ also: [net.gateway], trustNetwork: net.cidr });
  // The shared Temporal dev server, reached through the bridge.
  temporal = await forwardTcp(net.gateway, testServers().temporalAddress);
  rx = await startReceiver({}, net.gateway);
  const dir = tempDir('at-two-hosts-');
  const config = join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({
      api_keys: [{ id: 'hosts', key: KEY, scopes: ['triggers:read', 'triggers:write', 'signals:write', 'metrics:read'] }],
      allow_private_targets: true,
      retry: TEST_RETRY,
      limits: { default_timeout_secs: 3 },
    }),
  );
  env = {
    ACTION_TRIGGERS_CONFIG: config,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: `two-hosts-${process.pid}`,
    WORKFLOW_BUNDLE_PATH: testServers().workflowBundlePath,
    EVENT_STORE: 'postgres',
    POSTGRES_URL: `postgres://postgres@${net.gateway}:${pg.port}/postgres`,
  };
  hosts = net.hosts.map((h, i) => ({ name: h.name, exec: h.exec, dir: join(dir, `host${i + 1}`) }));
  // The first host starts first, so it takes the relay lease.
  for (const [i, h] of hosts.entries()) {
    await startApi(h, net.hosts[i]!.address);
    h.worker = await startWorkerProcess({ ...env, DATA_DIR: h.dir }, 60_000, h.exec);
  }
}, 180_000);

afterAll(async () => {
  for (const h of hosts ?? []) {
    if (h.api) await stopServerProcess(h.api, 'SIGKILL');
    if (h.worker) await killProcess(h.worker);
  }
  await rx?.close();
  await temporal?.close();
  if (pg) stopPostgres(pg);
  net?.remove();
});

test('2,000 signals round-robin to two hosts, the relay holder killed with SIGKILL midway: every signal delivered, none dispatched twice, the lease moves within its expiry, trigger history equal on both', async () => {
  const [h1, h2] = hosts as [Host, Host];
  // A trigger created on one host and changed on the other: both read models follow the one store.
  const created = await call(
    h1,
    'POST',
    '/api/action-triggers',
    triggerBody({ webhooks: [{ url: rx.url('/orders'), http_method: 'POST' }], payload: { id: '{{ instance.id }}' } }),
  );
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  await new Promise((r) => setTimeout(r, 300));
  expect((await call(h2, 'PATCH', `/api/action-triggers/${id}`, { payload: { id: '{{ instance.id }}', via: 'host2' } })).status).toBe(200);
  expect(await relayOf(h1)).toBe('this process');
  const victim = h1;
  const survivor = h2;

  let next = 0;
  let answered = 0;
  // From the kill on, while signals still arrive: when the survivor's relay holds the lease (the
  // lease stream's last event names its holder by process id), read from the store itself.
  const leaseMoved = new Promise<number>((resolve) => {
    const check = setInterval(() => {
      if (answered < SIGNALS / 2) return;
      clearInterval(check);
      const killedAt = Date.now();
      victim.api!.child.kill('SIGKILL');
      victim.worker!.kill('SIGKILL');
      resolve(untilHolder(`${survivor.api!.child.pid}-`, killedAt + 3 * LEASE_MS).then((at) => at - killedAt));
    }, 5);
  });
  // A client with a fallback: a signal its host did not accept goes to the other, with the same id.
  // Signal ids of this run only: workflow ids (`signal-<id>`) are unique in the namespace every test file shares.
  const run = `hosts-${process.pid}-${Date.now()}`;
  const send = async (n: number) => {
    const body = { id: `${run}-${n}`, signal: 'post_save', app_label: 'shop', model_name: 'order', instance: { id: `order-${n}` } };
    for (let attempt = 0; ; attempt++) {
      const target = hosts[(n + attempt) % 2]!;
      try {
        const res = await fetch(`${target.api!.url}/api/signals`, {
          method: 'POST',
          headers,
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(5000),
        });
        if (res.status === 202) return;
      } catch {
        /* that host is gone: the other one */
      }
      if (attempt > 20) throw new Error(`signal ${run}-${n} was accepted by neither host`);
    }
  };
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < SIGNALS) {
        await send(next++);
        answered++;
      }
    }),
  );
  // The lease moves to the survivor within its expiry (the lease's 5 s, plus a read's time).
  expect(await leaseMoved).toBeLessThanOrEqual(LEASE_MS + 500);

  const idsOf = () => new Map(rx.on('/orders').map((r) => [JSON.parse(r.body).id as string, new Set<string>()]));
  await rx.waitFor(() => idsOf().size >= SIGNALS, 240_000);
  // One dispatch per signal: a resend after the kill carries the same webhook-id.
  const webhookIds = idsOf();
  for (const r of rx.on('/orders')) webhookIds.get(JSON.parse(r.body).id as string)!.add(String(r.headers['webhook-id']));
  expect(webhookIds.size).toBe(SIGNALS);
  expect([...webhookIds].filter(([, ids]) => ids.size !== 1)).toEqual([]);

  // The victim comes back on its own data folder; both hosts' read models tell the same history.
  await startApi(victim, net.hosts[0]!.address);
  const [history1, history2] = await Promise.all([h1, h2].map((h) => call(h, 'GET', `/api/action-triggers/${id}/history`)));
  expect(history1!.body).toEqual(history2!.body);
  expect((history1!.body as unknown as unknown[]).length).toBe(2);
  const [list1, list2] = await Promise.all([h1, h2].map((h) => call(h, 'GET', '/api/action-triggers')));
  expect(list1).toEqual(list2);
}, 400_000);
