#!/usr/bin/env node
/**
 * `action-triggers-relay`: the outbox's relay as a process of its own. Settings come from the
 * environment (below); `--migrate` creates or updates the outbox table first. Runs until SIGTERM
 * or SIGINT, then finishes the pass under way; logs one JSON line per event to stdout.
 */
import pg from 'pg';
import { migrate } from '../outbox/migrations.ts';
import { startRelay } from '../relay/start.ts';
import type { RelayEvent } from '../relay/options.ts';

const USAGE = `usage: action-triggers-relay [--migrate]
  DATABASE_URL                     the PostgreSQL database holding the outbox (required)
  ACTION_TRIGGERS_URL              the service's address, e.g. https://triggers.example.com (required)
  ACTION_TRIGGERS_API_KEY          a key with the signals:write scope
  ACTION_TRIGGERS_RELAY_BATCH_SIZE, _LEASE_MS, _TIMEOUT_MS, _POLL_INTERVAL_MS, _MAX_BACKOFF_MS   (optional)`;

const env = process.env;
const numberOf = (name: string) => (env[name] === undefined || env[name] === '' ? undefined : Number(env[name]));

const log = (event: RelayEvent) => process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), ...event })}\n`);

const main = async () => {
  const args = process.argv.slice(2);
  if (args.some((a) => a !== '--migrate') || !env.DATABASE_URL || !env.ACTION_TRIGGERS_URL) {
    process.stderr.write(`${USAGE}\n`);
    process.exit(2);
  }
  const pool = new pg.Pool({ connectionString: env.DATABASE_URL, max: 4 });
  // An idle connection's error (the server restarted) must not end the process: the next query reconnects.
  pool.on('error', (e) => log({ level: 'warn', message: 'an idle database connection failed', error: e.message }));
  if (args.includes('--migrate')) log({ level: 'info', message: 'migrated', applied: await migrate(pool) });
  const relay = startRelay({
    pool,
    url: env.ACTION_TRIGGERS_URL,
    ...(env.ACTION_TRIGGERS_API_KEY ? { apiKey: env.ACTION_TRIGGERS_API_KEY } : {}),
    batchSize: numberOf('ACTION_TRIGGERS_RELAY_BATCH_SIZE'),
    leaseMs: numberOf('ACTION_TRIGGERS_RELAY_LEASE_MS'),
    timeoutMs: numberOf('ACTION_TRIGGERS_RELAY_TIMEOUT_MS'),
    pollIntervalMs: numberOf('ACTION_TRIGGERS_RELAY_POLL_INTERVAL_MS'),
    maxBackoffMs: numberOf('ACTION_TRIGGERS_RELAY_MAX_BACKOFF_MS'),
    log,
  });
  log({ level: 'info', message: 'relay started', relay: relay.id });
  const stop = async (signal: string) => {
    log({ level: 'info', message: 'stopping', signal });
    await relay.stop();
    await pool.end();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
};

main().catch((e: unknown) => {
  log({ level: 'error', message: 'the relay could not start', error: e instanceof Error ? e.message : String(e) });
  process.exit(1);
});
