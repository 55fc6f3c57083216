import { EventEmitter } from 'node:events';
import { Pool } from 'pg';
import { boundedPage } from '../kernel/bounded-page';
import { AppendOutcome, GROUP_MAX_CHARS, groupCommitter, SerializedAppend } from './group-commit';
import { EventStore, StoredEvent } from './port';
import { migrate } from './postgres-schema';
import { guarded, listenForAppends } from './postgres-connection';
import { followPositions } from './follow-positions';
import { categoryOf } from './recent-appends';

export interface PostgresOptions {
  /** A libpq connection string: `postgres://user:password@host:5432/database`. */
  readonly url: string;
  /** The schema the store's tables live in (created at start). */
  readonly schema: string;
  /** Connections this process may hold (appends, reads, subscriptions share them). */
  readonly poolMax: number;
  /** How long to wait for a connection (a new one, or a free one of the pool) before the operation fails as unavailable. */
  readonly connectTimeoutMs: number;
  /** How long one statement may run, on the server and as the client waits for it. */
  readonly statementTimeoutMs: number;
  /** How soon a subscription reads when no notification woke it (appends are also notified). */
  readonly pollMs?: number;
}

/** A subscription's batch when its subscriber sets no bound (as the SQLite store's). */
const SUBSCRIPTION_BATCH_BYTES = 16 * 1024 * 1024;

interface Row {
  position: string;
  stream_id: string;
  revision: string;
  type: string;
  data: string;
  metadata: string;
}
const COLUMNS = 'position, stream_id, revision, type, data, metadata';

const toStored = (r: Row): StoredEvent => ({
  position: BigInt(r.position),
  streamId: r.stream_id,
  revision: BigInt(r.revision),
  type: r.type,
  data: JSON.parse(r.data) as Record<string, unknown>,
  metadata: JSON.parse(r.metadata) as Record<string, unknown>,
});

const positionOf = (c: bigint | 'start') => (c === 'start' ? '0' : c.toString());

/**
 * The event store on a PostgreSQL server, for several hosts: the same port and contract as the
 * embedded SQLite store. Appends of a process go in groups through one function call (one round
 * trip, one transaction: see postgres-schema.ts for why positions are visible in order);
 * subscriptions read by position and wake on the server's notifications of appends.
 */
export const openPostgresStore = async (options: PostgresOptions): Promise<EventStore> => {
  const { schema } = options;
  const pool = new Pool({
    connectionString: options.url,
    max: options.poolMax,
    connectionTimeoutMillis: options.connectTimeoutMs,
    statement_timeout: options.statementTimeoutMs,
    query_timeout: options.statementTimeoutMs + 1000,
    keepAlive: true,
    application_name: 'action-triggers',
  });
  // An idle connection the server dropped: the pool replaces it; the next query reports an outage.
  pool.on('error', () => undefined);
  const query = guarded(pool);
  let closed = false;
  await query(async (p) => migrate(p, schema));

  const appended = new EventEmitter();
  appended.setMaxListeners(0);
  const listener = listenForAppends(options, (categories) => appended.emit('append', categories));

  const commit = async (group: SerializedAppend[]): Promise<AppendOutcome[]> => {
    const events = group.flatMap((a) => a.events);
    const result = await query((p) =>
      p.query<{ ok: boolean; next_revision: string | null; last_position: string | null; actual: string | null }>(
        `SELECT * FROM ${schema}.append_group($1, $2, $3, $4, $5, $6, $7)`,
        [
          group.map((a) => a.streamId),
          group.map((a) => String(a.expected)),
          group.map((a) => a.events.length),
          events.map((e) => e.type),
          events.map((e) => e.data),
          events.map((e) => e.metadata),
          Date.now(),
        ],
      ),
    );
    return result.rows.map((r, i) =>
      r.ok
        ? { ok: true, nextRevision: BigInt(r.next_revision!), position: BigInt(r.last_position ?? 0) }
        : {
            ok: false,
            streamId: group[i]!.streamId,
            expected: group[i]!.expected,
            actual: r.actual === null ? 'no_stream' : BigInt(r.actual),
          },
    );
  };
  const groups = groupCommitter(
    commit,
    (group, outcomes) => {
      if (outcomes) appended.emit('append', new Set(group.map((a) => categoryOf(a.streamId))));
    },
    GROUP_MAX_CHARS,
    true,
  );

  const rowsAfter = async (category: string, after: bigint | 'start', limit: number) =>
    (
      await query((p) =>
        p.query<Row>(`SELECT ${COLUMNS} FROM ${schema}.events WHERE category = $1 AND position > $2 ORDER BY position LIMIT $3`, [
          category,
          positionOf(after),
          limit,
        ]),
      )
    ).rows;

  /**
   * A subscription's batch: the server stops once the events' data pass `maxBytes` (so a backlog
   * of large definitions is not sent whole), and the page takes exactly what fits.
   */
  const readAfterWithin = async (category: string, after: bigint, limit: number, maxBytes: number) => {
    const rows = (
      await query((p) =>
        p.query<Row & { before: string; total: string }>(
          `SELECT * FROM (
         SELECT ${COLUMNS}, sum(octet_length(data) + 1) OVER (ORDER BY position) - octet_length(data) - 1 AS before, count(*) OVER () AS total
         FROM (SELECT * FROM ${schema}.events WHERE category = $1 AND position > $2 ORDER BY position LIMIT $3) AS next
       ) AS sized WHERE before <= $4 ORDER BY position`,
          [category, after.toString(), limit, maxBytes],
        ),
      )
    ).rows;
    const events: StoredEvent[] = [];
    const fit = boundedPage(maxBytes);
    for (const row of rows) {
      if (!fit.add(row.data)) return { events, cut: true };
      events.push(toStored(row));
    }
    return { events, cut: rows.length < Number(rows[0]?.total ?? 0) };
  };

  return {
    append: (streamId, events, expected) => {
      if (closed) return Promise.reject(new Error('the event store is closed'));
      return groups.append(streamId, events, expected);
    },
    read: async (streamId, range) => {
      const backwards = range?.direction === 'backwards';
      const from = range?.fromRevision ?? (backwards ? BigInt(Number.MAX_SAFE_INTEGER) : 0n);
      const rows = (
        await query((p) =>
          p.query<Row>(
            `SELECT ${COLUMNS} FROM ${schema}.events WHERE stream_id = $1 AND revision ${backwards ? '<=' : '>='} $2
         ORDER BY revision ${backwards ? 'DESC' : ''} LIMIT $3`,
            [streamId, from.toString(), range?.maxCount ?? null],
          ),
        )
      ).rows;
      return rows.map(toStored);
    },
    headPosition: async (category = 'action_trigger') => {
      const { rows } = await query((p) =>
        p.query<{ p: string | null }>(`SELECT max(position) AS p FROM ${schema}.events WHERE category = $1`, [category]),
      );
      return rows[0]?.p == null ? 'start' : BigInt(rows[0].p);
    },
    subscribe: (from, handler, onError, subscribeOptions = {}) =>
      followPositions(
        (position, limit) =>
          readAfterWithin(
            subscribeOptions.category ?? 'action_trigger',
            position,
            limit,
            subscribeOptions.maxBatchBytes ?? SUBSCRIPTION_BATCH_BYTES,
          ),
        appended,
        subscribeOptions.pollMs ?? options.pollMs ?? 100,
        from,
        handler,
        onError,
        { category: 'action_trigger', ...subscribeOptions },
      ),
    readCategory: async (category, after, limit) => (await rowsAfter(category, after, limit)).map(toStored),
    countAfter: async (category, from, cap) => {
      const { rows } = await query((p) =>
        p.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM (SELECT 1 FROM ${schema}.events WHERE category = $1 AND position > $2 LIMIT $3) AS after`,
          [category, positionOf(from), cap],
        ),
      );
      return rows[0]!.n;
    },
    // Oldest first, stopping at the first event recorded since `before`: work in proportion to what goes.
    removeRecordedBefore: async (category, before, through, max) => {
      if (closed) throw new Error('the event store is closed');
      const { rows } = await query((p) =>
        p.query<{ removed: string }>(`SELECT ${schema}.remove_recorded_before($1, $2, $3, $4) AS removed`, [
          category,
          before.getTime(),
          through.toString(),
          max,
        ]),
      );
      return Number(rows[0]!.removed);
    },
    truncateBefore: async (streamId, revision) => {
      if (closed) throw new Error('the event store is closed');
      await query((p) => p.query(`DELETE FROM ${schema}.events WHERE stream_id = $1 AND revision < $2`, [streamId, revision.toString()]));
    },
    close: async () => {
      closed = true;
      await groups.drained();
      await listener.close();
      await pool.end();
    },
  };
};
