import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '../../src/config';
import { ROOT } from './podman';
import { openPostgresStore } from '../../src/event-store/postgres';
import { startPostgres, stopPostgres } from '../support/brokers/postgres';

/**
 * docker-compose.yml through compose-spec's own loader (scripts/compose-check, the library docker
 * compose uses: interpolation, the compose-spec schema, references, profiles), then what a
 * deployment needs of it. No container engine runs it here.
 */
jest.setTimeout(5 * 60_000);

interface Service {
  image?: string; command?: string[] | null; restart?: string; profiles?: string[];
  environment?: Record<string, string | null>; healthcheck?: { test?: string[]; disable?: boolean };
  depends_on?: Record<string, { condition: string }>; secrets?: Array<{ source: string; target: string }>;
  volumes?: Array<{ source: string; target: string }>; ports?: Array<{ host_ip?: string; published: string }>;
}
interface Project { services: Record<string, Service>; secrets?: Record<string, { file: string }> }

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'at-compose-'));
const checker = join(dir, 'compose-check');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const load = async (file: string, env: Record<string, string>, profiles: string[] = []): Promise<Project> => {
  const { stdout } = await run(checker, [...profiles.flatMap((p) => ['--profile', p]), file],
    { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, maxBuffer: 16 * 1024 * 1024 });
  return JSON.parse(stdout) as Project;
};
const refusal = (file: string, env: Record<string, string>) => load(file, env).then(() => 'loaded', (e: { stderr?: string }) => e.stderr ?? String(e));
const ENV = { TEMPORAL_DB_PASSWORD: 'only-for-the-test', EVENT_STORE_DB_PASSWORD: 'store-only-for-the-test' };

/** The machine's go, or the toolchain scripts/install-tools.sh put in .tools/go where it had none (or an older one). */
const GO = existsSync(join(ROOT, '.tools', 'go', 'bin', 'go')) ? join(ROOT, '.tools', 'go', 'bin', 'go') : 'go';

beforeAll(async () => {
  await run(GO, ['build', '-o', checker, '.'], { cwd: join(ROOT, 'scripts', 'compose-check') });
});

test('the compose file loads; Temporal runs on PostgreSQL (not the dev server) with its UI', async () => {
  const { services } = await load('docker-compose.yml', ENV);
  expect(Object.keys(services).sort()).toEqual(['api', 'postgresql', 'temporal', 'temporal-ui', 'worker']);
  const temporal = services.temporal!;
  expect(temporal.image).toMatch(/^temporalio\/auto-setup:\d+\.\d+\.\d+$/);
  expect(JSON.stringify(temporal.command ?? [])).not.toContain('start-dev');
  expect(temporal.environment).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgresql', POSTGRES_PWD: 'only-for-the-test' });
  expect(services['temporal-ui']!.environment).toMatchObject({ TEMPORAL_ADDRESS: 'temporal:7233' });
});

test('every container restarts, starts after what it needs is healthy, and what others wait for has a health check', async () => {
  const { services } = await load('docker-compose.yml', ENV, ['brokers']);
  for (const [name, s] of Object.entries(services)) expect([name, s.restart]).toEqual([name, 'unless-stopped']);
  const waits = (name: string) => Object.fromEntries(Object.entries(services[name]!.depends_on ?? {}).map(([k, v]) => [k, v.condition]));
  expect(waits('temporal')).toEqual({ postgresql: 'service_healthy' });
  expect(waits('temporal-ui')).toEqual({ temporal: 'service_healthy' });
  for (const role of ['api', 'worker']) expect(waits(role)).toEqual({ temporal: 'service_healthy', postgresql: 'service_healthy' });
  const awaited = new Set(Object.values(services).flatMap((s) => Object.entries(s.depends_on ?? {})
    .filter(([, d]) => d.condition === 'service_healthy').map(([k]) => k)));
  for (const name of awaited) expect([name, services[name]!.healthcheck?.test?.length ?? 0]).not.toEqual([name, 0]);
  // The API's check is the image's own HEALTHCHECK (GET /healthz); the worker's asks its METRICS_PORT.
  expect(services.worker!.healthcheck?.test?.join(' ')).toContain(`127.0.0.1:${services.worker!.environment!.METRICS_PORT}/healthz`);
  expect(services.api!.healthcheck?.disable ?? false).toBe(false);
});

test('the roles share a PostgreSQL event store in a database of its own, made by the init script the postgres image runs', async () => {
  const { services } = await load('docker-compose.yml', ENV);
  for (const role of ['api', 'worker']) {
    expect(services[role]!.environment).toMatchObject({
      EVENT_STORE: 'postgres', POSTGRES_URL: 'postgres://action_triggers:store-only-for-the-test@postgresql:5432/action_triggers' });
  }
  const init = services.postgresql!.volumes!.find((v) => v.target.startsWith('/docker-entrypoint-initdb.d/'))!;
  // The script on a real server, as the image runs it (psql as POSTGRES_USER, the password in env).
  const pg = await startPostgres();
  try {
    await run('sh', [join(ROOT, init.source)], { env: { PATH: process.env.PATH ?? '', PGHOST: '127.0.0.1', PGPORT: String(pg.port),
      POSTGRES_USER: 'postgres', EVENT_STORE_DB_PASSWORD: services.postgresql!.environment!.EVENT_STORE_DB_PASSWORD! } });
    const url = `postgres://action_triggers@127.0.0.1:${pg.port}/action_triggers`;
    const store = await openPostgresStore({ url, schema: 'action_triggers', poolMax: 2, connectTimeoutMs: 5000, statementTimeoutMs: 5000 });
    await store.append('action_trigger-compose', [{ type: 'TriggerCreated', data: {}, metadata: {} }], 'no_stream');
    expect(await store.headPosition()).toBe(1n);
    await store.close();
  } finally {
    stopPostgres(pg);
  }
});

test('the brokers are an optional profile; the service is published on loopback only', async () => {
  const withBrokers = await load('docker-compose.yml', ENV, ['brokers']);
  const brokers = ['kafka', 'moto', 'pubsub', 'rabbitmq', 'redis'];
  expect(Object.keys(withBrokers.services).filter((n) => withBrokers.services[n]!.profiles?.includes('brokers')).sort()).toEqual(brokers);
  const published = Object.values(withBrokers.services).flatMap((s) => s.ports ?? []);
  expect(published.length).toBeGreaterThan(0);
  for (const p of published) expect(p.host_ip).toBe('127.0.0.1');
});

test('the committed config and example keys are ones the service accepts, and the keys reach the roles as a secret', async () => {
  const project = await load('docker-compose.yml', { ...ENV, ACTION_TRIGGERS_API_KEYS_FILE: './deploy/api-keys.example.json' });
  for (const role of ['api', 'worker']) {
    const s = project.services[role]!;
    const secret = s.secrets?.find((x) => x.source === 'api_keys');
    expect(secret?.target).toBe(s.environment!.API_KEYS_FILE);
    const mount = s.volumes!.find((v) => v.target === s.environment!.ACTION_TRIGGERS_CONFIG)!;
    // Committed (the service would start on every default without it: no file is no error).
    expect(existsSync(join(ROOT, mount.source))).toBe(true);
    // The service's own loader, on the files as the container sees them.
    const config = loadConfig({ ACTION_TRIGGERS_CONFIG: mount.source, API_KEYS_FILE: project.secrets!.api_keys!.file }, ROOT);
    expect(config.file.api_keys!.map((k) => k.id)).toEqual(['ops', 'shop-app']);
    expect(Object.keys(config.file.brokers ?? {}).sort()).toEqual(['cache', 'events', 'orders', 'pubsub', 'sns', 'sqs']);
  }
  expect(project.secrets!.api_keys!.file).toBe('./deploy/api-keys.example.json');
});

test('the loader refuses what compose would: no database password, an unknown key, a dependency on no service', async () => {
  expect(await refusal('docker-compose.yml', {})).toContain('required variable TEMPORAL_DB_PASSWORD is missing a value');
  expect(await refusal('docker-compose.yml', { TEMPORAL_DB_PASSWORD: 'x' })).toContain('required variable EVENT_STORE_DB_PASSWORD is missing a value');
  const original = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8');
  const variant = (name: string, text: string) => { writeFileSync(join(dir, name), text); return join(dir, name); };
  expect(await refusal(variant('typo.yml', original.replace('    restart: unless-stopped\n', '    restarts: unless-stopped\n')), ENV))
    .toContain('services.postgresql.restarts');
  expect(await refusal(variant('missing.yml', original.replace('postgresql: { condition: service_healthy }', 'postgres: { condition: service_healthy }')), ENV))
    .toContain('depends on undefined service "postgres"');
});
