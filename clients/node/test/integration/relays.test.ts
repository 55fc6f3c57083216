import { startReceiver, type Receiver } from '../../../../test/support/receiver';
import { Pool } from 'pg';
import { createDatabase } from '../../../../test/support/brokers/postgres';
import { createClient } from '../../src/index.ts';
import { emit, migrate, type OutboxSignal, startRelay } from '../../src/outbox/index.ts';
import { clientNodeServers } from '../support/servers';
import { outboxLag } from '../../src/relay/lag.ts';
import { startHoldingProxy } from '../support/holding-proxy';
import { startRelayProcess } from '../support/relay-process';
import { outboxDatabase, startService } from '../support/service';

/**
 * The relay as its own process (the package's command), killed mid-batch or two at once: every
 * signal reaches the receiver once, none lost, none twice, each instance's in the order written.
 */
let service: Awaited<ReturnType<typeof startService>>;
let db: Awaited<ReturnType<typeof outboxDatabase>>;
let rx: Receiver;
const relays: Array<ReturnType<typeof startRelayProcess>> = [];

beforeAll(async () => {
  [service, db, rx] = await Promise.all([startService(), outboxDatabase('relays'), startReceiver()]);
  await createClient({ baseUrl: service.url }).triggers.create({
    config_signals: [{ signal: 'post_save' }],
    content_types: [{ app_label: 'shop', model_name: 'stock' }],
    webhooks: [{ url: rx.url('/stock'), http_method: 'POST' }],
    active: true,
    ordering: 'per_instance',
    payload: { run: '{{ instance.run }}', item: '{{ instance.pk }}', n: '{{ instance.n }}' },
  });
}, 120_000);

afterAll(async () => {
  await Promise.all(relays.map((r) => r.kill('SIGKILL')));
  await db?.pool.end();
  await rx?.close();
  await service?.stop();
});

const relay = (url: string, more: Record<string, string> = {}) => {
  const r = startRelayProcess({ DATABASE_URL: db.url, ACTION_TRIGGERS_URL: url, ACTION_TRIGGERS_RELAY_LEASE_MS: '3000', ...more });
  relays.push(r);
  return r;
};

/** `items` instances, `updates` saves each, written in one transaction per round of saves. */
const writeStock = async (run: string, items: number, updates: number) => {
  for (let n = 1; n <= updates; n++) {
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      for (let item = 1; item <= items; item++) {
        const s: OutboxSignal = { signal: 'post_save', app_label: 'shop', model_name: 'stock', instance: { id: `${run}-${item}`, run, n } };
        await emit(client, s);
      }
      await client.query('COMMIT');
    } finally {
      client.release();
    }
  }
};

/** What the receiver got for a run: per item, the saves' numbers in the order they arrived. */
const arrivedFor = (run: string) => {
  const byItem = new Map<string, number[]>();
  for (const r of rx.on('/stock')) {
    const body = JSON.parse(r.body) as { run: string; item: string; n: number };
    if (body.run === run) byItem.set(body.item, [...(byItem.get(body.item) ?? []), body.n]);
  }
  return byItem;
};

const everyOnceInOrder = (run: string, items: number, updates: number) => {
  const arrived = arrivedFor(run);
  const expected = Array.from({ length: updates }, (_, i) => i + 1);
  expect(arrived.size).toBe(items);
  for (const ns of arrived.values()) expect(ns).toEqual(expected);
};

test('two relays at once share the rows: each signal delivered once, each instance in order', async () => {
  const [items, updates] = [20, 10];
  await writeStock('two', items, updates);
  const [a, b] = [
    relay(service.url, { ACTION_TRIGGERS_RELAY_BATCH_SIZE: '5' }),
    relay(service.url, { ACTION_TRIGGERS_RELAY_BATCH_SIZE: '5' }),
  ];
  await rx.waitFor(() => rx.on('/stock').filter((r) => JSON.parse(r.body).run === 'two').length >= items * updates, 120_000);
  await new Promise((r) => setTimeout(r, 1000)); // a second delivery would come within this
  everyOnceInOrder('two', items, updates);
  expect(a.sent() + b.sent()).toBe(items * updates);
  expect([a.sent(), b.sent()].every((n) => n > 0)).toBe(true);
  expect(await outboxLag(db.pool)).toEqual({ waiting: 0, oldestAgeMs: null, setAside: 0 });
  await Promise.all([a.kill('SIGTERM'), b.kill('SIGTERM')]);
}, 180_000);

test('a relay killed after the service accepted its batch: the next one sends it again, and each signal is still delivered once', async () => {
  const proxy = await startHoldingProxy(service.url);
  try {
    const [items, updates] = [5, 6];
    await writeStock('killed', items, updates);
    proxy.setHold(true);
    const first = relay(proxy.url, { ACTION_TRIGGERS_RELAY_BATCH_SIZE: '100' });
    await until(() => proxy.answers.length > 0, 30_000);
    expect(proxy.answers[0]!.status).toBe(202);
    await first.kill('SIGKILL');
    // Its rows stay leased to it until the lease runs out (3 s); the second relay takes them then.
    expect((await outboxLag(db.pool)).waiting).toBe(items * updates);
    proxy.setHold(false);
    const second = relay(proxy.url);
    await until(() => second.sent() === items * updates, 60_000);
    const resent = JSON.parse(proxy.answers[1]!.body) as Array<{ duplicate: boolean }>;
    expect(resent.every((a) => a.duplicate)).toBe(true);
    await rx.waitFor(() => rx.on('/stock').filter((r) => JSON.parse(r.body).run === 'killed').length >= items * updates, 60_000);
    await new Promise((r) => setTimeout(r, 1000));
    everyOnceInOrder('killed', items, updates);
    expect((await outboxLag(db.pool)).waiting).toBe(0);
    await second.kill('SIGTERM');
  } finally {
    await proxy.close();
  }
}, 180_000);

test('the service stopped for 30 s: what was committed meanwhile waits in the outbox and is delivered once when it is back', async () => {
  const r = relay(service.url, { ACTION_TRIGGERS_RELAY_BATCH_SIZE: '10', ACTION_TRIGGERS_RELAY_MAX_BACKOFF_MS: '2000' });
  await writeStock('away', 5, 2);
  await rx.waitFor(() => rx.on('/stock').filter((q) => JSON.parse(q.body).run === 'away').length >= 10, 60_000);
  const stopped = service.stopFor(30_000);
  await new Promise((w) => setTimeout(w, 2_000)); // the service is gone by now
  for (let n = 3; n <= 6; n++) await writeStock(`away-${n}`, 5, 1);
  expect((await outboxLag(db.pool)).waiting).toBe(20);
  await stopped;
  await until(() => r.sent() === 30, 90_000);
  await rx.waitFor(() => rx.on('/stock').filter((q) => String(JSON.parse(q.body).run).startsWith('away')).length >= 30, 90_000);
  await new Promise((w) => setTimeout(w, 1000));
  everyOnceInOrder('away', 5, 2);
  for (let n = 3; n <= 6; n++) everyOnceInOrder(`away-${n}`, 5, 1);
  expect(await outboxLag(db.pool)).toEqual({ waiting: 0, oldestAgeMs: null, setAside: 0 });
  await r.kill('SIGTERM');
}, 240_000);

test("a database restored from a backup: rows sent after the backup are not delivered twice, and the restored database's new rows are delivered", async () => {
  const pg = clientNodeServers().postgres;
  const [source, backup] = [`restore_src_${process.pid}`, `restore_backup_${process.pid}`];
  const sourceUrl = await createDatabase(pg, source);
  const onSource = async (write: (pool: Pool) => Promise<void>, relayToo: boolean) => {
    const pool = new Pool({ connectionString: sourceUrl, max: 4 });
    const r = relayToo ? startRelay({ pool, url: service.url, pollIntervalMs: 200, log: () => undefined }) : undefined;
    try {
      await write(pool);
      if (r) await untilAsync(async () => (await r.lag()).waiting === 0, 60_000);
    } finally {
      await r?.stop();
      await pool.end();
    }
  };
  const save = (pool: Pool, from: number, to: number) => writeItems(pool, 'restore', from, to);
  await onSource(async (pool) => {
    await migrate(pool);
    await save(pool, 1, 5);
  }, true);
  await onSource((pool) => save(pool, 6, 10), false); // waiting in the outbox when the backup is taken
  // The backup: a copy of the database as it is now (no connection may be open to it).
  const admin = new Pool({ connectionString: pg.url, max: 1 });
  await admin.query(`CREATE DATABASE ${backup} TEMPLATE ${source}`);
  await onSource((pool) => save(pool, 11, 15), true); // after the backup: 6-15 delivered
  await rx.waitFor(() => arrivedFor('restore').size >= 15, 60_000);
  // The source is lost; the backup is restored, holding 6-10 again and the row sequence as it was.
  const restored = new Pool({ connectionString: sourceUrl.replace(new RegExp(`/${source}$`), `/${backup}`), max: 4 });
  const r = startRelay({ pool: restored, url: service.url, pollIntervalMs: 200, log: () => undefined });
  try {
    await save(restored, 16, 20);
    await untilAsync(async () => (await r.lag()).waiting === 0, 60_000);
    await rx.waitFor(() => arrivedFor('restore').size >= 20, 60_000);
    await new Promise((w) => setTimeout(w, 1000));
    everyOnceInOrder('restore', 20, 1);
  } finally {
    await r.stop();
    await restored.end();
    await admin.query(`DROP DATABASE ${backup}`);
    await admin.query(`DROP DATABASE ${source}`);
    await admin.end();
  }
}, 180_000);

/** Items `from`..`to` of a run, each saved once, one transaction each. */
const writeItems = async (pool: Pool, run: string, from: number, to: number) => {
  for (let item = from; item <= to; item++) {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await emit(client, { signal: 'post_save', app_label: 'shop', model_name: 'stock', instance: { id: `${run}-${item}`, run, n: 1 } });
      await client.query('COMMIT');
    } finally {
      client.release();
    }
  }
};

const untilAsync = async (done: () => Promise<boolean>, ms: number) => {
  const end = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > end) throw new Error(`not done within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

const until = async (done: () => boolean, ms: number) => {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error(`not done within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
};
