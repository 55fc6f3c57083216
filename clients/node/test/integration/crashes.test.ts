import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { startReceiver, type Receiver } from '../../../../test/support/receiver';
import { createClient } from '../../src/index.ts';
import { OUTBOX_TABLE } from '../../src/outbox/index.ts';
import { outboxLag } from '../../src/relay/lag.ts';
import { outboxDatabase, startService } from '../support/service';

/**
 * A Node service saving 1,000 orders through each library, one transaction per order (every
 * third one rolled back), with its relay in the same process, killed with SIGKILL at random
 * points and started again: every committed order reaches the receiver exactly once, and no
 * rolled-back one ever does. The three libraries run at once against one real service.
 */
const ORDERS = Number(process.env.CRASH_ORDERS ?? 1000);
const KILLS = 6;
const APP = join(__dirname, '..', 'fixtures', 'crash-app.cjs');

let service: Awaited<ReturnType<typeof startService>>;
let db: Awaited<ReturnType<typeof outboxDatabase>>;
let rx: Receiver;
const apps = new Set<ChildProcess>();

beforeAll(async () => {
  [service, db, rx] = await Promise.all([startService(), outboxDatabase('crashes'), startReceiver()]);
  await db.pool.query('CREATE TABLE crash_orders (lib text NOT NULL, n integer NOT NULL, PRIMARY KEY (lib, n))');
  await createClient({ baseUrl: service.url }).triggers.create({
    config_signals: [{ signal: 'post_save' }],
    content_types: ['pg', 'knex', 'drizzle'].map((model_name) => ({ app_label: 'crash', model_name })),
    webhooks: [{ url: rx.url('/orders'), http_method: 'POST' }],
    active: true,
    payload: { lib: '{{ instance.lib }}', n: '{{ instance.n }}' },
  });
}, 120_000);

afterAll(async () => {
  for (const app of apps) app.kill('SIGKILL');
  await db?.pool.end();
  await rx?.close();
  await service?.stop();
});

/** The app for orders `from`..ORDERS; `last()` is the last order it reported done. */
const startApp = (lib: string, from: number) => {
  const child = spawn(process.execPath, [APP], {
    env: { ...process.env, LIB: lib, FROM: String(from), TO: String(ORDERS), DATABASE_URL: db.url, ACTION_TRIGGERS_URL: service.url },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  apps.add(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<void>((r) => child.on('exit', () => (apps.delete(child), r())));
  const lines = () => out.split('\n').filter(Boolean);
  return {
    last: () =>
      lines()
        .filter((l) => l !== 'done')
        .map(Number)
        .pop() ?? from - 1,
    done: () => lines().includes('done'),
    started: () => lines().length > 0,
    failed: () => (child.exitCode !== null && child.exitCode !== 0 ? err : undefined),
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
};

const until = async (done: () => boolean | Promise<boolean>, ms: number, what: string) => {
  const end = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

/** Runs one library's app to the end, killed KILLS times on the way; how many kills found rows leased (a relay mid-batch). */
const crashThrough = async (lib: string) => {
  let from = 1;
  let midBatch = 0;
  for (let kill = 0; kill < KILLS && from <= ORDERS; kill++) {
    const app = startApp(lib, from);
    await until(() => app.started() || app.failed() !== undefined, 30_000, `${lib} app starting`);
    await new Promise((r) => setTimeout(r, 50 + Math.random() * 700));
    const leased = await db.pool.query(
      `SELECT count(*)::int AS n FROM ${OUTBOX_TABLE} WHERE leased_until > now() AND signal->'instance'->>'lib' = $1`,
      [lib],
    );
    await app.kill();
    expect(app.failed()).toBeUndefined();
    if (leased.rows[0].n > 0) midBatch++;
    from = app.last() + 1;
  }
  const app = startApp(lib, from);
  await until(() => app.done() || app.failed() !== undefined, 240_000, `${lib} app finishing`);
  expect(app.failed()).toBeUndefined();
  return { app, midBatch };
};

test(`${ORDERS} transactions through node-postgres, Knex and Drizzle, the app killed at random points: each committed order delivered once, no rolled-back one`, async () => {
  const runs = await Promise.all(['pg', 'knex', 'drizzle'].map(async (lib) => ({ lib, ...(await crashThrough(lib)) })));
  await until(async () => (await outboxLag(db.pool)).waiting === 0, 240_000, 'outbox emptied');
  const committed = Array.from({ length: ORDERS }, (_, i) => i + 1).filter((n) => n % 3 !== 0);
  await rx.waitFor(() => rx.on('/orders').length >= committed.length * 3, 300_000);
  await new Promise((r) => setTimeout(r, 2_000)); // a second delivery would come within this
  for (const { lib } of runs) {
    const saved = (await db.pool.query('SELECT n FROM crash_orders WHERE lib = $1 ORDER BY n', [lib])).rows.map((r) => r.n as number);
    expect(saved).toEqual(committed);
    const arrived = rx
      .on('/orders')
      .map((r) => JSON.parse(r.body) as { lib: string; n: number })
      .filter((b) => b.lib === lib)
      .map((b) => b.n);
    expect(arrived.length).toBe(committed.length);
    expect([...new Set(arrived)].sort((a, b) => a - b)).toEqual(committed);
  }
  expect(await outboxLag(db.pool)).toEqual({ waiting: 0, oldestAgeMs: null, setAside: 0 });
  for (const { app } of runs) await app.kill();
  // What the kills hit, for the record (random: a kill may find the relay between batches).
  process.stdout.write(
    `crash test: ${KILLS} kills per library; kills that found rows leased (a relay mid-batch): ${runs.map((r) => `${r.lib} ${r.midBatch}`).join(', ')}\n`,
  );
}, 900_000);
