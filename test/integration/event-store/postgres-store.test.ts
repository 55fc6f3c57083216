import { Client } from 'pg';
import { EventStore, StoredEvent } from '../../../src/event-store/port';
import { openPostgresStore, PostgresOptions } from '../../../src/event-store/postgres';
import { SCHEMA_VERSION } from '../../../src/event-store/postgres-schema';
import { describeEventStoreContract } from '../../support/event-store-contract';
import { PostgresServer, startPostgres, stopPostgres } from '../../support/brokers/postgres';

/** Debian's PostgreSQL, a cluster of this file's own (started like the brokers, in a second). */
let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres();
}, 60_000);
afterAll(() => stopPostgres(server));

const optionsOf = (schema: string): PostgresOptions => ({
  url: server.url,
  schema,
  poolMax: 4,
  connectTimeoutMs: 5000,
  statementTimeoutMs: 10_000,
});

describeEventStoreContract('PostgreSQL', async () => openPostgresStore(optionsOf('contract')));

const event = (writer: number, n: number) => ({ type: 'TriggerActivated', data: { writer, n }, metadata: {} });

/**
 * Follows every trigger event until `count` have come, or 10 s passed without (an event skipped
 * never comes: the test then fails on what was seen, not on its time-out).
 */
const follow = (store: EventStore, count: number) => {
  const seen: StoredEvent[] = [];
  let done: () => void;
  const all = new Promise<void>((r) => {
    done = r;
  });
  const sub = store.subscribe(
    'start',
    async (batch) => {
      seen.push(...batch);
      if (seen.length >= count) done();
    },
    (e) => {
      throw e;
    },
    { pollMs: 20 },
  );
  const ended = () =>
    Promise.race([all, new Promise((r) => setTimeout(r, 10_000))])
      .then(() => sub.close())
      .then(() => seen);
  return { seen, ended };
};

test('8 writers on 8 connection pools and a transaction held open with a position taken: the subscriber skips nothing, repeats nothing, in a valid global order', async () => {
  const writers = await Promise.all(Array.from({ length: 8 }, () => openPostgresStore(optionsOf('concurrent'))));
  const reader = await openPostgresStore(optionsOf('concurrent'));
  const perWriter = 60;
  const subscriber = follow(reader, 8 * perWriter + 1);
  // A transaction of the store's own append (its function, its lock) that takes a position and
  // does not commit yet: whatever the others append meanwhile may not become visible before it.
  const held = new Client({ connectionString: server.url });
  await held.connect();
  await held.query('BEGIN');
  const [heldRow] = (
    await held.query<{ last_position: string }>(
      "SELECT * FROM concurrent.append_group(ARRAY['action_trigger-held'], ARRAY['no_stream'], ARRAY[1], ARRAY['TriggerActivated'], ARRAY['{\"held\":true}'], ARRAY['{}'], 0)",
    )
  ).rows;
  let settled = 0;
  const appends = writers.map(async (store, w) => {
    for (let n = 0; n < perWriter; n++) {
      await store.append(`action_trigger-w${w}`, [event(w, n)], n === 0 ? 'no_stream' : BigInt(n - 1));
      settled++;
    }
  });
  await new Promise((r) => setTimeout(r, 500));
  // The writers wait for the held transaction rather than commit past its position.
  expect(settled).toBe(0);
  expect(subscriber.seen).toHaveLength(0);
  await held.query('COMMIT');
  await held.end();
  await Promise.all(appends);
  const seen = await subscriber.ended();

  const positions = seen.map((e) => e.position);
  expect(new Set(positions).size).toBe(seen.length);
  expect([...positions].sort((a, b) => (a < b ? -1 : 1))).toEqual(positions);
  expect(seen[0]).toMatchObject({ streamId: 'action_trigger-held', position: BigInt(heldRow!.last_position) });
  expect(seen).toHaveLength(8 * perWriter + 1);
  for (let w = 0; w < 8; w++) {
    const mine = seen.filter((e) => e.streamId === `action_trigger-w${w}`);
    expect(mine.map((e) => e.data.n)).toEqual(Array.from({ length: perWriter }, (_, n) => n));
    expect(mine.map((e) => e.revision)).toEqual(Array.from({ length: perWriter }, (_, n) => BigInt(n)));
  }
  await Promise.all([...writers, reader].map((s) => s.close()));
}, 60_000);

test('concurrent writers without pause: a subscriber following live sees exactly what was appended, in position order', async () => {
  const writers = await Promise.all(Array.from({ length: 8 }, () => openPostgresStore(optionsOf('live'))));
  const reader = await openPostgresStore(optionsOf('live'));
  const perWriter = 150;
  const subscriber = follow(reader, 8 * perWriter);
  const results = await Promise.all(
    writers.map(async (store, w) => {
      const positions: bigint[] = [];
      // Several appends in flight per writer: they share group commits.
      await Promise.all(
        Array.from({ length: perWriter }, async (_, n) => {
          positions.push((await store.append(`action_trigger-live-${w}-${n}`, [event(w, n)], 'no_stream')).position);
        }),
      );
      return positions;
    }),
  );
  const seen = await subscriber.ended();
  const appended = results.flat().sort((a, b) => (a < b ? -1 : 1));
  expect(seen.map((e) => e.position)).toEqual(appended);
  expect(appended).toHaveLength(8 * perWriter);
  await Promise.all([...writers, reader].map((s) => s.close()));
}, 60_000);

test('two processes starting at once on an empty database: the schema is created once, both work', async () => {
  const [a, b] = await Promise.all([openPostgresStore(optionsOf('racing')), openPostgresStore(optionsOf('racing'))]);
  await a.append('action_trigger-racing', [event(0, 0)], 'no_stream');
  expect((await b.read('action_trigger-racing')).map((e) => e.data)).toEqual([{ writer: 0, n: 0 }]);
  const client = new Client({ connectionString: server.url });
  await client.connect();
  const { rows } = await client.query('SELECT version FROM racing.schema_version');
  await client.end();
  expect(rows).toEqual([{ version: SCHEMA_VERSION }]);
  await Promise.all([a.close(), b.close()]);
});

test('a schema newer than this build is refused at start, with both versions named', async () => {
  const client = new Client({ connectionString: server.url });
  await client.connect();
  await client.query(
    'CREATE SCHEMA future; CREATE TABLE future.schema_version (version int NOT NULL); INSERT INTO future.schema_version VALUES (99)',
  );
  await client.end();
  await expect(openPostgresStore(optionsOf('future'))).rejects.toThrow(
    `postgres schema future is at version 99, newer than this build's ${SCHEMA_VERSION}`,
  );
});

test("a database at an older schema version is brought up to this build's at start, its events kept", async () => {
  const first = await openPostgresStore(optionsOf('upgrade'));
  await first.append('signal-old', [event(0, 0)], 'no_stream');
  await first.close();
  // As a database made by the first version was: no removal function, version 1.
  const client = new Client({ connectionString: server.url });
  await client.connect();
  await client.query('DROP FUNCTION upgrade.remove_recorded_before; UPDATE upgrade.schema_version SET version = 1');
  const again = await openPostgresStore(optionsOf('upgrade'));
  expect((await client.query('SELECT version FROM upgrade.schema_version')).rows).toEqual([{ version: SCHEMA_VERSION }]);
  await client.end();
  expect(await again.countAfter('signal', 'start', 10)).toBe(1);
  expect(await again.removeRecordedBefore('signal', new Date(Date.now() + 60_000), 1_000_000n, 10)).toBe(1);
  await again.close();
});

test('a schema name PostgreSQL reserves is refused at start, by its config path', async () => {
  await expect(openPostgresStore(optionsOf('user'))).rejects.toThrow('postgres.schema "user" is a reserved word in PostgreSQL');
});
