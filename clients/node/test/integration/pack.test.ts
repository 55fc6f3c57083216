import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDatabase } from '../../../../test/support/brokers/postgres';
import { clientNodeServers } from '../support/servers';

/**
 * The package as a service installs it: `npm pack`'s tarball installed into a fresh project
 * outside the repository (its peers from npm's cache where it has them: this repository installed
 * the same versions), then `require`, `import`, the relay's command and the declarations under
 * `strict`.
 */
const PACKAGE = join(__dirname, '..', '..');
const ROOT = join(PACKAGE, '..', '..');
const FIXTURES = join(__dirname, '..', 'fixtures', 'consumer');
/** The versions this repository installed, so npm's cache has them. */
const PEERS = ['pg', 'knex', 'drizzle-orm', '@types/pg', '@types/node'].map(
  (name) =>
    `${name}@${(JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version}`,
);

let dir: string;
let project: string;
/** npm's own settings only: none of the run's (`npm test` sets npm_config_* for what it starts). */
const env = () => Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')));
const run = (command: string, args: string[], cwd = project) =>
  execFileSync(command, args, { cwd, env: env(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 240_000 });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'at-client-pack-'));
  project = join(dir, 'consumer');
  run('npm', ['pack', '--ignore-scripts', '--pack-destination', dir], PACKAGE);
  execFileSync('mkdir', [project]);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
  const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'))!;
  run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', join(dir, tarball), ...PEERS]);
  for (const file of readdirSync(FIXTURES)) copyFileSync(join(FIXTURES, file), join(project, file));
}, 300_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the tarball holds the builds, the SQL and the README, not the sources or tests', () => {
  const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'))!;
  const files = run('tar', ['-tzf', join(dir, tarball)], dir)
    .split('\n')
    .filter(Boolean);
  for (const f of [
    'dist/cjs/index.js',
    'dist/esm/index.js',
    'dist/cjs/index.d.ts',
    'dist/esm/outbox/drizzle.d.ts',
    'dist/cjs/bin/relay.js',
    'sql/0001_outbox.sql',
    'README.md',
  ])
    expect(files).toContain(`package/${f}`);
  expect(files.filter((f) => /^package\/(src|test|scripts)\//.test(f))).toEqual([]);
});

test('require() and import of every entry work; the outbox runs from the installed package', async () => {
  const url = await createDatabase(clientNodeServers().postgres, `pack_${process.pid}`);
  expect(JSON.parse(run('node', ['check.cjs', url]))).toEqual({
    applied: ['0001_outbox'],
    id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    waiting: 1,
    kinds: ['function', 'function', 'function', 'function', 'function'],
  });
  expect(JSON.parse(run('node', ['check.mjs', url]))).toEqual({ waiting: 3, client: 'function' });
}, 60_000);

test("the relay's command is installed and says what it needs", () => {
  let status: number | undefined;
  let stderr = '';
  try {
    run(join(project, 'node_modules', '.bin', 'action-triggers-relay'), []);
  } catch (e) {
    ({ status, stderr } = e as { status: number; stderr: string });
  }
  expect(status).toBe(2);
  expect(stderr).toMatch(/^usage: action-triggers-relay \[--migrate\]\n {2}DATABASE_URL/);
});

test("the declarations compile with strict, as CommonJS and as ES modules, used with the libraries' own types", () => {
  const compile = (skipLibCheck: boolean) => {
    const compilerOptions = {
      strict: true,
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2022',
      noEmit: true,
      skipLibCheck,
      types: ['node'],
    };
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['typed.cts', 'typed.mts'] }));
    try {
      return run('node', [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project]);
    } catch (e) {
      return (e as { stdout: string }).stdout;
    }
  };
  expect(compile(true)).toBe('');
  // Checked too, the package's own declarations have no error (Drizzle's, for databases not installed here, have some).
  const errors = compile(false)
    .split('\n')
    .filter((line) => /^\S+\(\d+,\d+\): error/.test(line));
  expect(errors.length).toBeGreaterThan(0);
  expect(errors.filter((line) => !line.startsWith('node_modules/') || line.startsWith('node_modules/@action-triggers/'))).toEqual([]);
}, 180_000);
