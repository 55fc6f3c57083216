import type { Queryable } from './db.ts';

/**
 * The outbox's migrations, in order. Each is also a file under sql/ (shipped in the package, for
 * projects that run their own migration tool); a unit test keeps the two the same.
 */
export const MIGRATIONS: ReadonlyArray<{ id: string; sql: string }> = [
  {
    id: '0001_outbox',
    sql: `-- The outbox of @action-triggers/client: one row per signal, written in the transaction of the
-- change; the relay sends the rows and deletes what the service accepted.
CREATE TABLE IF NOT EXISTS action_triggers_outbox (
  -- Made by the application (a UUIDv7), never by a sequence: after a restore from a backup the
  -- new rows still get ids the service has never seen, so none is dropped as a duplicate.
  id uuid PRIMARY KEY,
  -- Insertion order, for sending one instance's rows in order; reissued after a restore, which
  -- is harmless: it is never sent.
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  signal jsonb NOT NULL,
  -- Rows of one key are sent in seq order; NULL: ordered by nothing.
  instance_key text,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  -- Requests that did not settle the row (the service away), and why the last one did not.
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  -- A relay holds a row it is sending until then; a relay that died loses it when it passes.
  leased_until timestamptz,
  lease_owner text,
  -- Refused by the service (last_error says why): kept for a person to look at, never sent
  -- again, and no longer holding back its instance's later rows.
  set_aside_at timestamptz
);

CREATE INDEX IF NOT EXISTS action_triggers_outbox_waiting ON action_triggers_outbox (seq) WHERE set_aside_at IS NULL;
CREATE INDEX IF NOT EXISTS action_triggers_outbox_instance ON action_triggers_outbox (instance_key, seq) WHERE set_aside_at IS NULL;

-- A commit that wrote rows wakes the relays (NOTIFY is delivered at commit, never for a rollback),
-- whichever library wrote them.
CREATE OR REPLACE FUNCTION action_triggers_outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('action_triggers_outbox', '');
  RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS action_triggers_outbox_notify ON action_triggers_outbox;
CREATE TRIGGER action_triggers_outbox_notify AFTER INSERT ON action_triggers_outbox
  FOR EACH STATEMENT EXECUTE FUNCTION action_triggers_outbox_notify();
`,
  },
];

/** Where `migrate` records what it applied. */
const APPLIED = 'action_triggers_outbox_migrations';
/** Any number, the same in every process: migrations run one process at a time. */
const LOCK = 7_391_154_022;

interface Connection extends Queryable {
  release(): void;
}

/**
 * Creates or updates the outbox table: the migrations not applied yet, in one transaction, under
 * an advisory lock (several processes starting at once apply each once). Returns the ids it
 * applied.
 */
export const migrate = async (pool: { connect(): Promise<Connection> }): Promise<string[]> => {
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS ${APPLIED} (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set((await client.query(`SELECT id FROM ${APPLIED}`)).rows.map((r) => (r as { id: string }).id));
    for (const m of MIGRATIONS.filter((m) => !done.has(m.id))) {
      await client.query(m.sql);
      await client.query(`INSERT INTO ${APPLIED} (id) VALUES ($1)`, [m.id]);
      applied.push(m.id);
    }
    await client.query('COMMIT');
    return applied;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    client.release();
  }
};
