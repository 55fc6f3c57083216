import { openPostgresStore } from '../src/event-store/postgres';
import { startPostgres, stopPostgres } from '../test/support/brokers/postgres';

/**
 * A PostgreSQL server of the bench's own (Debian's, fsync on: as durable as the SQLite store's
 * `synchronous = FULL`), the service's environment to use it, and a store on it for seeding.
 */
export const startBenchPostgres = async () => {
  const server = await startPostgres({ durable: true });
  const options = { url: server.url, schema: 'action_triggers', poolMax: 10, connectTimeoutMs: 5000, statementTimeoutMs: 15_000 };
  return {
    env: { EVENT_STORE: 'postgres', POSTGRES_URL: server.url },
    openStore: () => openPostgresStore(options),
    stop: () => stopPostgres(server),
  };
};

/** Which stores a bench runs on: BENCH_STORES=sqlite,postgres (default both, in that order). */
export const benchStores = () =>
  (process.env.BENCH_STORES ?? 'sqlite,postgres').split(',').filter((s) => s === 'sqlite' || s === 'postgres');
