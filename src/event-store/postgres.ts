import { EventEmitter } from 'node:events';
import { Pool } from 'pg';
import { GROUP_MAX_CHARS, groupCommitter } from './group-commit';
import { EventStore } from './port';
import { migrate } from './postgres-schema';
import { guarded, listenForAppends } from './postgres-connection';
import { followPositions } from './follow-positions';
import { categoryOf } from './recent-appends';
import { countAfter, eventsAfter, eventsAfterWithin, headPosition, PgEvents, readStream } from './postgres-reads';
import { appendGroup, removeRecordedBefore, truncateBefore } from './postgres-writes';

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

const openPool = (options: PostgresOptions) => {
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
  return pool;
};

/**
 * The event store on a PostgreSQL server, for several hosts: the same port and contract as the
 * embedded SQLite store. Appends of a process go in groups through one function call (one round
 * trip, one transaction: see postgres-schema.ts for why positions are visible in order);
 * subscriptions read by position and wake on the server's notifications of appends.
 */
export const openPostgresStore = async (options: PostgresOptions): Promise<EventStore> => {
  const pool = openPool(options);
  const pg: PgEvents = { query: guarded(pool), schema: options.schema };
  let closed = false;
  await pg.query(async (p) => migrate(p, pg.schema));

  const appended = new EventEmitter();
  appended.setMaxListeners(0);
  const listener = listenForAppends(options, (categories) => appended.emit('append', categories));
  const groups = groupCommitter(
    (group) => appendGroup(pg, group),
    (group, outcomes) => {
      if (outcomes) appended.emit('append', new Set(group.map((a) => categoryOf(a.streamId))));
    },
    GROUP_MAX_CHARS,
    true,
  );
  const assertOpen = () => {
    if (closed) throw new Error('the event store is closed');
  };

  return {
    append: (streamId, events, expected) => {
      if (closed) return Promise.reject(new Error('the event store is closed'));
      return groups.append(streamId, events, expected);
    },
    read: (streamId, range) => readStream(pg, streamId, range),
    headPosition: (category = 'action_trigger') => headPosition(pg, category),
    subscribe: (from, handler, onError, subscribeOptions = {}) =>
      followPositions(
        (position, limit) =>
          eventsAfterWithin(
            pg,
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
    readCategory: (category, after, limit) => eventsAfter(pg, category, after, limit),
    countAfter: (category, from, cap) => countAfter(pg, category, from, cap),
    removeRecordedBefore: async (category, before, through, max) => {
      assertOpen();
      return removeRecordedBefore(pg, category, before, through, max);
    },
    truncateBefore: async (streamId, revision) => {
      assertOpen();
      await truncateBefore(pg, streamId, revision);
    },
    close: async () => {
      closed = true;
      await groups.drained();
      await listener.close();
      await pool.end();
    },
  };
};
