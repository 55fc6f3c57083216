import { v7 as uuidv7 } from 'uuid';
import { createDeliveredLedger } from '../../../src/delivery/delivered-ledger';
import { createBreaker } from '../../../src/model/breaker/record-outcome';
import { loadBreaker } from '../../../src/model/breaker/stream';
import type { Attempt } from '../../../src/dispatch/types';
import { EventStore } from '../../../src/event-store/port';
import { openPostgresStore } from '../../../src/event-store/postgres';
import { createLogger } from '../../../src/kernel/logger';
import { acquireLease, relayCheckpoint, renewLease } from '../../../src/model/signals/relay-lease';
import { streamOf } from '../../../src/model/triggers/events';
import { createDefinitionAt } from '../../../src/model/triggers/definition-at';
import { createTurnStore } from '../../../src/ordering/turn-store';
import type { GiveTurn } from '../../../src/dispatch/ordering';
import { PostgresServer, startPostgres, stopPostgres } from '../../support/brokers/postgres';

/**
 * What the service keeps in the store besides triggers and signals, on PostgreSQL with two
 * store connections standing for two hosts: the circuit breaker, the delivered ledger, the
 * relay lease, the turns of an instance order. (Categories, retention and subscriptions: the contract suite.)
 */
let server: PostgresServer;
let hosts: [EventStore, EventStore];
const logLines: string[] = [];
const log = createLogger('info', (line) => logLines.push(line));

beforeAll(async () => {
  server = await startPostgres();
  const open = () =>
    openPostgresStore({ url: server.url, schema: 'features', poolMax: 4, connectTimeoutMs: 5000, statementTimeoutMs: 10_000 });
  hosts = [await open(), await open()];
}, 60_000);
afterAll(async () => {
  await Promise.all((hosts ?? []).map((s) => s.close()));
  stopPostgres(server);
});

const createdTrigger = async (store: EventStore) => {
  const id = uuidv7();
  await store.append(
    streamOf(id),
    [
      {
        type: 'TriggerCreated',
        data: {
          schema_version: 1,
          trigger_id: id,
          definition: {
            config_signals: [{ signal: 'post_save' }],
            content_types: [{ app_label: 'shop', model_name: 'order' }],
            webhooks: [{ url: 'https://hooks.example.com/x', http_method: 'POST' }],
            msg_broker_queues: [],
            active: true,
            payload: {},
          },
        },
        metadata: { actor: 'test', request_id: 'r', occurred_at: new Date().toISOString() },
      },
    ],
    'no_stream',
  );
  return id;
};

test('the circuit breaker: 155 final failures recorded at once from two hosts, every one counted, the trigger deactivated once', async () => {
  const id = await createdTrigger(hosts[0]);
  const recorders = hosts.map((store) =>
    createBreaker({
      store,
      definitionAt: createDefinitionAt(store),
      settings: { consecutiveFailures: 150, failingForMs: 3_600_000 },
      log,
    }),
  );
  const failed: Attempt = { outcome: 'retry', errorType: 'WebhookStatus', reason: 'HTTP 500', statusCode: 500 };
  await Promise.all(
    Array.from({ length: 155 }, (_, i) =>
      recorders[i % 2]!(
        { deliveryId: `burst-${i}.${id}.w0`, triggerId: id, version: 1, kind: 'webhook', index: 0, timeoutSecs: 5 },
        failed,
        true,
      ),
    ),
  );
  const deadline = Date.now() + 20_000;
  const failures = async () => (await loadBreaker(hosts[1], id)).state.runs.w0?.failures ?? 0;
  while ((await failures()) < 155 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  expect(await failures()).toBe(155);
  const events = (await hosts[1].read(streamOf(id))).map((e) => e.type);
  expect(events).toEqual(['TriggerCreated', 'TriggerDeactivated']);
  expect(logLines.filter((l) => l.includes('outcome not recorded'))).toEqual([]);
});

test('the delivered ledger: a delivery recorded by one host is found by the other', async () => {
  const [a, b] = hosts.map((store) => createDeliveredLedger(store, log));
  const workflowId = `signal-${uuidv7()}`;
  expect(await b!.find(workflowId, 'd1')).toBeUndefined();
  await a!.record(workflowId, 'd1', { attempt: 2, warnings: [], statusCode: 204 });
  expect(await b!.find(workflowId, 'd1')).toEqual({ attempt: 2, warnings: [], statusCode: 204 });
});

test('the relay lease: one holder at a time across hosts; the other takes it when it ends, with the checkpoint', async () => {
  const now = Date.now();
  const first = await acquireLease(hosts[0], 'host-a', 1000, now);
  expect(first).toBeDefined();
  expect(await acquireLease(hosts[1], 'host-b', 1000, now + 500)).toBeUndefined();
  const renewed = await renewLease(hosts[0], first!, 42n, 1000, now + 600);
  expect(await acquireLease(hosts[1], 'host-b', 1000, now + 1599)).toBeUndefined();
  expect(await acquireLease(hosts[1], 'host-b', 1000, now + 1601)).toMatchObject({ holder: 'host-b', checkpoint: 42n });
  // The old holder can no longer move the checkpoint.
  expect(await renewLease(hosts[0], renewed!, 99n, 1000, now + 1700)).toBeUndefined();
  expect(await relayCheckpoint(hosts[0])).toBe(42n);
});

test("the turns of an instance order: queued by the relay's host, ended and passed on by workers on both, cut as they go", async () => {
  const [relay, workerA, workerB] = [createTurnStore(hosts[0]), createTurnStore(hosts[0]), createTurnStore(hosts[1])];
  const orderId = `ordered-${uuidv7()}-k`;
  const d = (n: number) => ({ workflowId: `signal-${n}`, position: String(n) });
  const told: string[] = [];
  const give: GiveTurn = async (workflowId) => {
    told.push(workflowId);
    return 'given';
  };
  expect(await relay.isIdle(orderId)).toBe(true);
  for (let n = 1; n <= 100; n++) await relay.queue(orderId, [d(n)]);
  expect(await relay.isIdle(orderId)).toBe(false);
  for (let n = 1; n <= 100; n++) {
    // Each dispatch's turn is read and ended on either host; the next is told by the one that ended.
    const host = n % 2 === 0 ? workerA : workerB;
    expect(await host.isTurn(orderId, d(n), 't')).toBe(true);
    if (n < 100) expect(await host.isTurn(orderId, d(n + 1), 't')).toBe(false);
    await host.end(orderId, d(n), 't', give);
  }
  expect(told).toEqual(Array.from({ length: 99 }, (_, i) => `signal-${i + 2}`));
  expect(await relay.isIdle(orderId)).toBe(true);
  expect((await hosts[1].read(orderId)).length).toBeLessThan(64);
});
