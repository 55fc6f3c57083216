import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Pool, type PoolClient } from 'pg';
import { createDatabase, startPostgres, stopPostgres } from '../test/support/brokers/postgres';
import type * as OutboxModule from '../clients/node/src/outbox/index.ts';
import { startBenchStack } from './server';
import { median, pct } from './stats';

/**
 * `npm run bench -- outbox`: what the Node client's outbox costs an application and what its
 * relay carries. (1) The time a transaction takes with `emit` in it against the same transaction
 * without (`BENCH_TX` transactions per variant, `BENCH_ROUNDS` alternating rounds, one
 * connection, PostgreSQL with fsync on): median and p99, and what emit adds. (2) The relay's
 * throughput: `BENCH_RELAY_ROWS` rows committed, then one relay started against the service (an
 * API process on a Temporal dev server, no trigger: the service stores each signal as
 * unmatched) until the outbox is empty, per batch size in `BENCH_BATCHES`.
 */
const TX = Number(process.env.BENCH_TX ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const RELAY_ROWS = Number(process.env.BENCH_RELAY_ROWS ?? 10_000);
const BATCHES = (process.env.BENCH_BATCHES ?? '100,500').split(',').map(Number);

const PACKAGE = join(__dirname, '..', 'clients', 'node');
let outbox: typeof OutboxModule;

/** The package as an application runs it: built, then required from its CommonJS build. */
const loadOutbox = async () => {
  await promisify(execFile)(process.execPath, [join(PACKAGE, 'scripts', 'build.js')], { cwd: PACKAGE });
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the build made just now
  outbox = require(join(PACKAGE, 'dist', 'cjs', 'outbox', 'index.js')) as typeof OutboxModule;
};

const order = (n: number) => ({
  signal: 'post_save' as const,
  app_label: 'shop',
  model_name: 'order',
  instance: { id: n, total: '19.90', status: 'paid', lines: 3 },
});

/** `count` transactions on one connection, each an order's INSERT and, `withOutbox`, its signal: ms each. */
const transactions = async (client: PoolClient, count: number, withOutbox: boolean, first: number) => {
  const ms: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    await client.query('BEGIN');
    await client.query('INSERT INTO bench_orders (id, total, status) VALUES ($1, 19.90, $2)', [first + i, 'paid']);
    if (withOutbox) await outbox.emit(client, order(first + i));
    await client.query('COMMIT');
    ms.push(performance.now() - t0);
  }
  return ms;
};

const transactionTime = async (pool: Pool) => {
  const client = await pool.connect();
  const times = { without: [] as number[], with: [] as number[] };
  try {
    await transactions(client, Math.min(200, TX), true, 1e9); // warm-up, untimed
    let next = 1;
    for (let round = 0; round < ROUNDS; round++)
      for (const variant of ['without', 'with'] as const) {
        times[variant].push(...(await transactions(client, TX, variant === 'with', next)));
        next += TX;
      }
  } finally {
    client.release();
  }
  const row = (name: string, ms: number[]) => `| ${name} | ${ms.length} | ${median(ms).toFixed(3)} | ${pct(ms, 99).toFixed(3)} |`;
  console.log(`\n### Outbox: a transaction's time with emit (${ROUNDS} alternating rounds of ${TX}, fsync on)\n`);
  console.log('| transaction | count | median ms | p99 ms |\n|---|---|---|---|');
  console.log(row('INSERT an order', times.without));
  console.log(row('INSERT an order + emit', times.with));
  const added = (p: (xs: number[]) => number) => (p(times.with) - p(times.without)).toFixed(3);
  console.log(`| added by emit | | ${added(median)} | ${added((xs) => pct(xs, 99))} |`);
};

const relayThroughput = async (pool: Pool, url: string) => {
  console.log(`\n### Outbox: the relay's throughput (${RELAY_ROWS} rows waiting, one relay, the service on SQLite)\n`);
  console.log('| batch size | rows | seconds | rows/s |\n|---|---|---|---|');
  for (const batchSize of BATCHES) {
    const client = await pool.connect();
    try {
      for (let i = 0; i < RELAY_ROWS; i += 100) {
        await client.query('BEGIN');
        for (let j = i; j < Math.min(RELAY_ROWS, i + 100); j++) await outbox.emit(client, order(j));
        await client.query('COMMIT');
      }
    } finally {
      client.release();
    }
    const t0 = performance.now();
    const relay = outbox.startRelay({ pool, url, batchSize, pollIntervalMs: 100, log: () => undefined });
    while ((await outbox.outboxLag(pool)).waiting > 0) await new Promise((r) => setTimeout(r, 20));
    const s = (performance.now() - t0) / 1000;
    await relay.stop();
    const { setAside } = await outbox.outboxLag(pool);
    if (setAside > 0) throw new Error(`${setAside} rows set aside: the bench's signals should all be accepted`);
    console.log(`| ${batchSize} | ${RELAY_ROWS} | ${s.toFixed(2)} | ${Math.round(RELAY_ROWS / s)} |`);
  }
};

export const benchOutbox = async () => {
  await loadOutbox();
  const pg = await startPostgres({ durable: true });
  const stack = await startBenchStack('outbox', 'api').catch(async (e: unknown) => {
    stopPostgres(pg);
    throw e;
  });
  const pool = new Pool({ connectionString: await createDatabase(pg, 'bench_outbox'), max: 4 });
  try {
    await outbox.migrate(pool);
    await pool.query('CREATE TABLE bench_orders (id bigint PRIMARY KEY, total numeric NOT NULL, status text NOT NULL)');
    await transactionTime(pool);
    await pool.query(`DELETE FROM ${outbox.OUTBOX_TABLE}`);
    await relayThroughput(pool, stack.service.url);
  } finally {
    await pool.end();
    await stack.stop();
    stopPostgres(pg);
  }
};
