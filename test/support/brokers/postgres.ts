import { execFileSync } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort } from '../free-port';
import { killGroup, spawnServer, waitUntil } from './process-group';

/** A private PostgreSQL server (Debian's binaries) on loopback, trust authentication. */
export interface PostgresServer {
  host: string;
  port: number;
  url: string;
  pgid: number;
  root: string;
  durable: boolean;
  /** Addresses it listens on besides loopback (a bridge's, for hosts in network namespaces). */
  also: string[];
}

/** initdb and postgres refuse to run as root: as root they run as this user. */
const OWNER = 'postgres';

const binDir = () => {
  const versions = existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions.map((v) => `/usr/lib/postgresql/${v}/bin`).find((d) => existsSync(join(d, 'initdb')));
  if (!found) throw new Error("PostgreSQL is not installed (bash scripts/install-tools.sh installs Debian's postgresql)");
  return found;
};
const asOwner = (command: string, args: string[]): [string, string[]] =>
  userInfo().uid === 0 ? ['runuser', ['-u', OWNER, '--', command, ...args]] : [command, args];

const answers = async (url: string) => {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
};

const run = async (server: Omit<PostgresServer, 'pgid'>): Promise<PostgresServer> => {
  const [command, args] = asOwner(join(binDir(), 'postgres'), [
    '-D',
    join(server.root, 'data'),
    '-p',
    String(server.port),
    '-k',
    server.root,
    '-c',
    `listen_addresses=${['127.0.0.1', ...server.also].join(',')}`,
    '-c',
    'max_connections=200',
    // A test server need not survive the machine (fsync off: the OS still has every write when
    // the server is killed); a benchmark's must, as production's. Commits stay synchronous: with
    // synchronous_commit=off a killed server loses commits it acknowledged, and the identity
    // sequence restarts below positions subscribers already passed (seen here: signals skipped).
    ...(server.durable ? [] : ['-c', 'fsync=off']),
  ]);
  const child = spawnServer('postgres', server.root, command, args);
  await waitUntil('postgres', server.root, child, () => answers(server.url), 60_000);
  return { ...server, pgid: child.pid! };
};

/**
 * A fresh cluster in its own folder under /tmp (the owner must be able to enter it), started on
 * a free port. `durable` keeps fsync on, for benchmarks; `also` and `trustNetwork` let test hosts
 * in network namespaces connect.
 */
export const startPostgres = async (
  options: { durable?: boolean; also?: string[]; trustNetwork?: string } = {},
): Promise<PostgresServer> => {
  const root = mkdtempSync('/tmp/atc-pg-');
  if (userInfo().uid === 0) {
    const uid = Number(execFileSync('id', ['-u', OWNER]).toString());
    const gid = Number(execFileSync('id', ['-g', OWNER]).toString());
    chownSync(root, uid, gid);
  }
  const [command, args] = asOwner(join(binDir(), 'initdb'), [
    '-D',
    join(root, 'data'),
    '-A',
    'trust',
    '-U',
    'postgres',
    '-E',
    'UTF8',
    '--no-sync',
  ]);
  execFileSync(command, args, { stdio: 'pipe' });
  // initdb trusts loopback only; test hosts in namespaces connect from their bridge's network.
  if (options.trustNetwork) appendFileSync(join(root, 'data', 'pg_hba.conf'), `host all all ${options.trustNetwork} trust\n`);
  const port = await freePort();
  return run({
    host: '127.0.0.1',
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    root,
    durable: options.durable ?? false,
    also: options.also ?? [],
  });
};

/** Kills the server (SIGKILL, as a crash) and starts it again on the same data and port. */
export const killPostgres = (server: PostgresServer) => killGroup(server.pgid);
export const restartPostgres = (server: PostgresServer) => run(server);

export const stopPostgres = (server: PostgresServer) => {
  killGroup(server.pgid);
  rmSync(server.root, { recursive: true, force: true });
};

/** A database of its own on the server, for one test file. */
export const createDatabase = async (server: PostgresServer, name: string) => {
  const client = new Client({ connectionString: server.url });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return server.url.replace(/\/postgres$/, `/${name}`);
};
