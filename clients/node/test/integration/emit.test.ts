import knexFactory, { type Knex } from 'knex';
import { drizzle } from 'drizzle-orm/node-postgres';
import type { Pool } from 'pg';
import { startReceiver, type Receiver } from '../../../../test/support/receiver';
import { createClient } from '../../src/index.ts';
import { emit as emitPg, type OutboxSignal, startRelay, type Relay } from '../../src/outbox/index.ts';
import { emit as emitKnex } from '../../src/outbox/knex.ts';
import { emit as emitDrizzle } from '../../src/outbox/drizzle.ts';
import { BECAME_PAID, outboxDatabase, startService, triggerOnSave } from '../support/service';

/**
 * Signals written in a transaction with node-postgres, Knex and Drizzle reach a real service
 * through the relay once the transaction commits, and never when it rolls back; the relay is
 * woken by the commit (its polling is set to a minute), and the signal's shape is the Django
 * app's: `instance.pk`, `previous` for a transition condition.
 */
let service: Awaited<ReturnType<typeof startService>>;
let db: Awaited<ReturnType<typeof outboxDatabase>>;
let rx: Receiver;
let relay: Relay;
let knex: Knex;

beforeAll(async () => {
  [service, db, rx] = await Promise.all([startService(), outboxDatabase('emit'), startReceiver()]);
  knex = knexFactory({ client: 'pg', connection: db.url, pool: { min: 0, max: 2 } });
  await triggerOnSave(service.url, 'shop.order', rx.url('/orders'), { lib: '{{ instance.lib }}', order: '{{ instance.pk }}' });
  await triggerOnSave(
    service.url,
    'shop.invoice',
    rx.url('/paid'),
    { invoice: '{{ instance.pk }}', was: '{{ previous.status }}' },
    BECAME_PAID,
  );
  relay = startRelay({ pool: db.pool, url: service.url, pollIntervalMs: 60_000, log: () => undefined });
}, 120_000);

afterAll(async () => {
  await relay?.stop();
  await knex?.destroy();
  await db?.pool.end();
  await rx?.close();
  await service?.stop();
});

const order = (lib: string, id: number): OutboxSignal => ({
  signal: 'post_save',
  app_label: 'shop',
  model_name: 'order',
  instance: { id, lib, total: 9.5 },
});

/** Each library's way to run a transaction that commits or rolls back, emitting one signal in it. */
const LIBRARIES: Array<[string, (s: OutboxSignal, commit: boolean) => Promise<string>]> = [
  [
    'node-postgres',
    async (s, commit) => {
      const client = await db.pool.connect();
      try {
        await client.query('BEGIN');
        const { id } = await emitPg(client, s);
        await client.query(commit ? 'COMMIT' : 'ROLLBACK');
        return id;
      } finally {
        client.release();
      }
    },
  ],
  [
    'knex',
    async (s, commit) => {
      let id = '';
      await knex
        .transaction(async (trx) => {
          id = (await emitKnex(trx, s)).id;
          if (!commit) throw new Error('rolled back');
        })
        .catch((e: Error) => {
          if (e.message !== 'rolled back') throw e;
        });
      return id;
    },
  ],
  [
    'drizzle',
    async (s, commit) => {
      let id = '';
      await drizzle(db.pool as Pool)
        .transaction(async (tx) => {
          id = (await emitDrizzle(tx, s)).id;
          if (!commit) tx.rollback();
        })
        .catch((e: Error) => {
          if (!/rollback/i.test(e.message)) throw e;
        });
      return id;
    },
  ],
];

test.each(LIBRARIES)(
  '%s: a committed transaction is delivered within moments; a rolled-back one sends nothing',
  async (lib, inTransaction) => {
    const rolledBack = await inTransaction(order(lib, 2), false);
    const committedAt = Date.now();
    const committed = await inTransaction(order(lib, 1), true);
    await rx.waitFor(() => rx.on('/orders').some((r) => JSON.parse(r.body).lib === lib), 20_000);
    const bodies = rx.on('/orders').map((r) => JSON.parse(r.body) as { lib: string; order: number });
    expect(bodies.filter((b) => b.lib === lib)).toEqual([{ lib, order: 1 }]);
    // Woken by the commit's NOTIFY: the relay's own polling would take a minute.
    const accepted = await until(async () => (await relay.lag()).waiting === 0);
    expect(accepted - committedAt).toBeLessThan(5_000);
    const at = createClient({ baseUrl: service.url });
    expect((await at.signals.status(committed)).state).not.toBe('unmatched');
    await expect(at.signals.status(rolledBack)).rejects.toMatchObject({ status: 404 });
  },
  60_000,
);

test('a transition condition sees `previous` as the Django app sends it; a signal it does not hold for says why', async () => {
  const invoice = (status: string, was: string | null): OutboxSignal => ({
    signal: 'post_save',
    app_label: 'shop',
    model_name: 'invoice',
    instance: { id: 7, status },
    previous: was === null ? null : { id: 7, status: was },
  });
  const client = await db.pool.connect();
  let ids: string[];
  try {
    await client.query('BEGIN');
    ids = [
      (await emitPg(client, invoice('pending', null))).id,
      (await emitPg(client, invoice('paid', 'pending'))).id,
      (await emitPg(client, invoice('paid', 'paid'))).id,
    ];
    await client.query('COMMIT');
  } finally {
    client.release();
  }
  await rx.waitFor(() => rx.on('/paid').length === 1, 20_000);
  await until(async () => (await relay.lag()).waiting === 0);
  expect(JSON.parse(rx.on('/paid')[0]!.body)).toEqual({ invoice: 7, was: 'pending' });
  const at = createClient({ baseUrl: service.url });
  const [created, , same] = await Promise.all(ids.map((id) => at.signals.status(id)));
  expect(created!.not_matched).toEqual([
    expect.objectContaining({ reason: 'condition_false', detail: 'the signal has no previous state' }),
  ]);
  expect(same!.not_matched).toEqual([expect.objectContaining({ reason: 'condition_false' })]);
  expect(rx.on('/paid')).toHaveLength(1);
}, 60_000);

test('a LISTEN connection lost is opened again: a later commit is still sent within moments', async () => {
  const listening = `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN action_triggers_outbox'`;
  const before = (await db.pool.query(listening)).rows as Array<{ pid: number }>;
  expect(before).toHaveLength(1);
  await db.pool.query('SELECT pg_terminate_backend($1)', [before[0]!.pid]);
  await until(async () => {
    const now = (await db.pool.query(listening)).rows as Array<{ pid: number }>;
    return now.length === 1 && now[0]!.pid !== before[0]!.pid;
  }, 10_000);
  const committedAt = Date.now();
  await LIBRARIES[0]![1](order('after-reconnect', 9), true);
  await rx.waitFor(() => rx.on('/orders').some((r) => JSON.parse(r.body).lib === 'after-reconnect'), 20_000);
  expect(Date.now() - committedAt).toBeLessThan(5_000);
}, 30_000);

/** Polls `done` every 20 ms; resolves with the time it first held. */
const until = async (done: () => Promise<boolean>, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > end) throw new Error(`not done within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return Date.now();
};
