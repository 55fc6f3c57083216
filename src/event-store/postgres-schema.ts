import type { Pool } from 'pg';

/** A schema name this store may create and use (it is written into SQL, so never free text). */
export const SCHEMA_NAME = /^(?!pg_)[a-z_][a-z0-9_]{0,62}$/;

/** Advisory locks are keyed by two int4s: this one ('atc') and the hash of the schema name. */
const LOCK_CLASS = 0x617463;

/** The channel appends notify with the categories they wrote (delivered at commit). */
export const NOTIFY_CHANNEL = 'action_triggers_events';

/**
 * The append function. Positions come from an identity column, which alone would not do: a
 * transaction that took position 5 may commit after the one that took 6, and a subscriber that
 * read 6 and moved its checkpoint past 5 would never see it. So every group holds one advisory
 * lock from before it takes a position until it has committed (PostgreSQL makes a commit visible
 * before it releases the transaction's locks): positions become visible in order, the visible
 * events are always every position up to some point, and a checkpoint is one number. Writers
 * wait for each other as SQLite's do; group commit amortises the wait (one lock and one fsync
 * per group of appends). Each append checks its stream's revision under that lock.
 */
const appendFunction = (schema: string) => `
CREATE OR REPLACE FUNCTION ${schema}.append_group(
  streams text[], expected text[], counts int[], types text[], datas text[], metas text[], recorded bigint)
RETURNS TABLE (ok boolean, next_revision bigint, last_position bigint, actual bigint)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  i int;
  offs int := 0;
  cur bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(${LOCK_CLASS}, hashtext('${schema}'));
  FOR i IN 1 .. coalesce(array_length(streams, 1), 0) LOOP
    SELECT max(e.revision) INTO cur FROM ${schema}.events e WHERE e.stream_id = streams[i];
    IF expected[i] = 'any' OR (expected[i] = 'no_stream' AND cur IS NULL)
       OR (expected[i] NOT IN ('any', 'no_stream') AND cur = expected[i]::bigint) THEN
      ok := true;
      next_revision := coalesce(cur, -1) + counts[i];
      actual := NULL;
      WITH inserted AS (
        INSERT INTO ${schema}.events (stream_id, revision, type, data, metadata, recorded_at)
        SELECT streams[i], coalesce(cur, -1) + k, types[offs + k], datas[offs + k], metas[offs + k], recorded
        FROM generate_series(1, counts[i]) AS k ORDER BY k
        RETURNING position)
      SELECT max(position) INTO last_position FROM inserted;
    ELSE
      ok := false; next_revision := NULL; last_position := NULL; actual := cur;
    END IF;
    RETURN NEXT;
    offs := offs + counts[i];
  END LOOP;
  PERFORM pg_notify('${NOTIFY_CHANNEL}', c)
  FROM (SELECT DISTINCT split_part(s, '-', 1) AS c FROM unnest(streams) AS s WHERE strpos(s, '-') > 0) AS categories;
END
$fn$`;

/**
 * Retention's removal as one statement (one function call): a transaction over several round
 * trips held the append lock on a checked-out connection, which a lost connection could leave
 * open (every host's appends waiting) or turn into an unhandled error.
 */
const removeFunction = (schema: string) => `
CREATE FUNCTION ${schema}.remove_recorded_before(p_category text, p_before bigint, p_through bigint, p_max int)
RETURNS bigint
LANGUAGE plpgsql AS $fn$
DECLARE
  removed bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(${LOCK_CLASS}, hashtext('${schema}'));
  WITH oldest AS (SELECT position, recorded_at FROM ${schema}.events WHERE category = p_category ORDER BY position LIMIT p_max),
       stop AS (SELECT min(position) AS p FROM oldest WHERE recorded_at >= p_before OR position > p_through)
  DELETE FROM ${schema}.events WHERE category = p_category
    AND position <= (SELECT max(position) FROM oldest WHERE position < coalesce((SELECT p FROM stop), 9223372036854775807));
  GET DIAGNOSTICS removed = ROW_COUNT;
  RETURN removed;
END
$fn$`;

/** Each version's statements, in order; a deployed version is never edited, a new one is added. */
const MIGRATIONS: ReadonlyArray<(schema: string) => string[]> = [
  (schema) => [
    `CREATE TABLE ${schema}.events (
      position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      stream_id text NOT NULL,
      revision bigint NOT NULL,
      category text GENERATED ALWAYS AS (CASE WHEN strpos(stream_id, '-') > 0 THEN split_part(stream_id, '-', 1) ELSE '' END) STORED,
      type text NOT NULL,
      data text NOT NULL,
      metadata text NOT NULL,
      recorded_at bigint NOT NULL,
      UNIQUE (stream_id, revision))`,
    `CREATE INDEX events_by_category ON ${schema}.events (category, position)`,
    appendFunction(schema),
  ],
  (schema) => [removeFunction(schema)],
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Creates or brings the schema up to this build's version, in one transaction under an advisory
 * lock of its own: processes that start at once migrate one after the other, and the later ones
 * find nothing to do. A database newer than this build is refused (its events may not be readable).
 */
const newerThanBuild = (schema: string, version: number) =>
  new Error(`postgres schema ${schema} is at version ${version}, newer than this build's ${SCHEMA_VERSION}`);

export const migrate = async (pool: Pool, schema: string) => {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`postgres.schema ${JSON.stringify(schema)} must match ${SCHEMA_NAME}`);
  const client = await pool.connect();
  // Checked out, a connection's errors are the holder's: unhandled, a lost one would end the
  // process. The query under way fails with it, and the catch below releases the connection.
  const lost = () => undefined;
  client.on('error', lost);
  let failure: Error | undefined;
  try {
    // A reserved word (`user`, `order`) would need quoting everywhere: refused by name instead.
    const {
      rows: [quoted],
    } = await client.query<{ q: string }>('SELECT quote_ident($1) AS q', [schema]);
    if (quoted?.q !== schema)
      throw new Error(`postgres.schema ${JSON.stringify(schema)} is a reserved word in PostgreSQL; choose another name`);
    // Up to date already (every start after the first): no lock, and no CREATE privilege needed.
    const {
      rows: [known],
    } = await client.query<{ t: string | null }>('SELECT to_regclass($1) AS t', [`${schema}.schema_version`]);
    const existing = known?.t
      ? (await client.query<{ version: number }>(`SELECT version FROM ${schema}.schema_version`)).rows[0]?.version
      : undefined;
    if (existing !== undefined && existing > SCHEMA_VERSION) throw newerThanBuild(schema, existing);
    if (existing === SCHEMA_VERSION) return;
    await client.query('BEGIN');
    await client.query(`SELECT pg_advisory_xact_lock(${LOCK_CLASS}, hashtext('${schema}.migrate'))`);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${schema}.schema_version (version int NOT NULL)`);
    const found = await client.query<{ version: number }>(`SELECT version FROM ${schema}.schema_version`);
    const current = found.rows[0]?.version ?? 0;
    if (current > SCHEMA_VERSION) throw newerThanBuild(schema, current);
    for (const statements of MIGRATIONS.slice(current)) for (const sql of statements(schema)) await client.query(sql);
    if (found.rows.length === 0) await client.query(`INSERT INTO ${schema}.schema_version VALUES ($1)`, [SCHEMA_VERSION]);
    else await client.query(`UPDATE ${schema}.schema_version SET version = $1`, [SCHEMA_VERSION]);
    await client.query('COMMIT');
  } catch (e) {
    failure = e as Error;
    throw e;
  } finally {
    client.off('error', lost);
    // Released with an error, the pool closes the connection, and the server rolls back.
    client.release(failure);
  }
};
