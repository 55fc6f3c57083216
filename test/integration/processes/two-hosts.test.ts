import { Client } from 'pg';
import { PostgresServer } from '../../support/brokers/postgres';
import { TestNetwork } from '../../support/netns';
import { Receiver } from '../../support/receiver';
import { forwardTcp } from '../../support/tcp-forward';
import { call, Host, postSignals, relayOf, startApi, startTwoHosts, stopTwoHosts } from '../../support/two-hosts';
import { triggerBody } from '../../support/trigger-body';

/**
 * Two hosts (network namespaces on a bridge), each running the API and a worker with its own
 * data folder (its read model), sharing one PostgreSQL store and one Temporal server, reached
 * on the bridge as the receiver is. One host is killed with SIGKILL mid-stream.
 */
const SIGNALS = 2000;
const LEASE_MS = 5000; // the relay's default lease

let net: TestNetwork;
let pg: PostgresServer;
let temporal: Awaited<ReturnType<typeof forwardTcp>>;
let rx: Receiver;
let env: Record<string, string>;
let hosts: Host[];

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
  // The first host starts first, so it takes the relay lease.
  ({ net, pg, temporal, rx, env, hosts } = await startTwoHosts('two-hosts', String(process.pid % 10_000)));
}, 180_000);

afterAll(() => stopTwoHosts({ net, pg, temporal, rx, hosts }));

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
  const send = (n: number) =>
    postSignals(hosts, n, {
      id: `${run}-${n}`,
      signal: 'post_save',
      app_label: 'shop',
      model_name: 'order',
      instance: { id: `order-${n}` },
    });
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
  await startApi(victim, net.hosts[0]!.address, env);
  const [history1, history2] = await Promise.all([h1, h2].map((h) => call(h, 'GET', `/api/action-triggers/${id}/history`)));
  expect(history1!.body).toEqual(history2!.body);
  expect((history1!.body as unknown as unknown[]).length).toBe(2);
  const [list1, list2] = await Promise.all([h1, h2].map((h) => call(h, 'GET', '/api/action-triggers')));
  expect(list1).toEqual(list2);
}, 400_000);
