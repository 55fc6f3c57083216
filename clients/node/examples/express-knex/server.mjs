/* global process, console */
// An Express service that saves orders with Knex on PostgreSQL, each change emitting its signal
// into the outbox in the change's own transaction, with the relay in the same process.
//   DATABASE_URL=postgres://… ACTION_TRIGGERS_URL=http://127.0.0.1:8080 node server.mjs
import express from 'express';
import knexFactory from 'knex';
import pg from 'pg';
import { migrate, startRelay } from '@action-triggers/client/outbox';
import { emit } from '@action-triggers/client/knex';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
const knex = knexFactory({ client: 'pg', connection: process.env.DATABASE_URL });

await migrate(pool); // the outbox table
if (!(await knex.schema.hasTable('orders')))
  await knex.schema.createTable('orders', (t) => {
    t.increments('id');
    t.decimal('total', 10, 2).notNullable();
    t.string('status', 16).notNullable().defaultTo('pending');
  });

/** The signal of a saved order: `previous` is the order before the change (none for a new one). */
const saved = (order, previous) => ({
  signal: 'post_save',
  app_label: 'shop',
  model_name: 'order',
  instance: order,
  ...(previous ? { previous } : {}),
});

const app = express();
app.use(express.json());

app.post('/orders', async (req, res) => {
  const order = await knex.transaction(async (trx) => {
    const [row] = await trx('orders').insert({ total: req.body.total }).returning('*');
    await emit(trx, saved(row));
    return row;
  });
  res.status(201).json(order);
});

app.post('/orders/:id/pay', async (req, res) => {
  const order = await knex.transaction(async (trx) => {
    const before = await trx('orders').where({ id: req.params.id }).forUpdate().first();
    if (!before) return undefined;
    const [after] = await trx('orders').where({ id: before.id }).update({ status: 'paid' }).returning('*');
    await emit(trx, saved(after, before));
    return after;
  });
  if (order) res.json(order);
  else res.status(404).json({ error: 'no such order' });
});

const relay = startRelay({ pool, url: process.env.ACTION_TRIGGERS_URL, apiKey: process.env.ACTION_TRIGGERS_API_KEY });
const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () =>
  console.log(`orders service on http://127.0.0.1:${server.address().port}`),
);

process.once('SIGTERM', async () => {
  server.close();
  await relay.stop(); // ends the pass under way; what is left waits in the outbox for the next start
  await knex.destroy();
  await pool.end();
});
