import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startReceiver, type Receiver } from '../../../../test/support/receiver';
import { createClient } from '../../src/index.ts';
import { outboxDatabase, startService } from '../support/service';

/** The bodies of the quick start's `curl … /api/action-triggers -d '…'` commands. */
const triggersInQuickStart = () =>
  [
    ...readFileSync(join(__dirname, '..', '..', '..', '..', 'docs', 'node-quick-start.md'), 'utf8').matchAll(
      /api\/action-triggers .*?-d '([^']+)'/gs,
    ),
  ].map((m) => m[1]!);

/**
 * The Node quick start (docs/node-quick-start.md) as written: its triggers, and its Express and Knex service
 * (clients/node/examples/express-knex/server.mjs, on the built package) saves an order and pays it, and the
 * receiver gets both webhooks of the quick start's triggers.
 */
let service: Awaited<ReturnType<typeof startService>>;
let db: Awaited<ReturnType<typeof outboxDatabase>>;
let rx: Receiver;

beforeAll(async () => {
  [service, db, rx] = await Promise.all([startService(), outboxDatabase('quick_start'), startReceiver()]);
}, 120_000);

afterAll(async () => {
  await db?.pool.end();
  await rx?.close();
  await service?.stop();
});

test('the example service: an order saved and paid reaches the receiver as the quick start says', async () => {
  // The quick start's own triggers, as its curl commands send them, to this test's receiver.
  const bodies = triggersInQuickStart();
  expect(bodies).toHaveLength(2);
  for (const body of bodies)
    await createClient({ baseUrl: service.url }).triggers.create(JSON.parse(body.replaceAll('http://127.0.0.1:9000', rx.url(''))));
  const app = spawn(process.execPath, [join(__dirname, '..', '..', 'examples', 'express-knex', 'server.mjs')], {
    env: { ...process.env, PORT: '0', DATABASE_URL: db.url, ACTION_TRIGGERS_URL: service.url },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  app.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  app.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((r) => app.on('exit', (code) => r(code)));
  try {
    const base = await new Promise<string>((resolve, reject) => {
      const timer = setInterval(() => {
        const m = /orders service on (http:\/\/[\d.:]+)/.exec(out);
        if (m) resolve(m[1]!);
        if (m || app.exitCode !== null) clearInterval(timer);
        if (!m && app.exitCode !== null) reject(new Error(`the example exited: ${out}`));
      }, 50);
    });
    const created = await fetch(`${base}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"total":"12.50"}',
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: number };
    expect((await fetch(`${base}/orders/${id}/pay`, { method: 'POST' })).status).toBe(200);
    expect((await fetch(`${base}/orders/999/pay`, { method: 'POST' })).status).toBe(404);
    await rx.waitFor(() => rx.on('/orders').length >= 2 && rx.on('/paid').length >= 1, 30_000);
    await new Promise((r) => setTimeout(r, 1000));
    // Two saves of one order: in either order, since this trigger does not ask for per_instance.
    expect(rx.on('/orders').map((r) => JSON.parse(r.body))).toEqual(
      expect.arrayContaining([
        { order: id, status: 'pending' },
        { order: id, status: 'paid' },
      ]),
    );
    expect(rx.on('/orders')).toHaveLength(2);
    expect(rx.on('/paid').map((r) => JSON.parse(r.body))).toEqual([{ order: id, was: 'pending' }]);
    app.kill('SIGTERM');
    expect(await exited).toBe(0);
  } finally {
    app.kill('SIGKILL');
  }
}, 120_000);
