import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { commandLine, listeningPorts, markedRuns, stillListening } from '../../support/run-processes';

/**
 * The README's set-up and test commands on a fresh clone, on a machine whose `node` is 20: the
 * test command runs on Node 24 and reaches its integration tests; interrupted during its global
 * setup (SIGINT to its process group, as Ctrl-C) or after it (SIGTERM to npm alone, as a CI
 * time-out), it leaves no process and no port behind. The clone shares this checkout's `.tools`
 * (the servers installed, as on a machine that ran the tests once); `npm install` is its own.
 */
const ROOT = join(__dirname, '..', '..', '..');
const NODE_20 = join(ROOT, '.tools/node20/bin/node');
const PROJECT_NODE = join(ROOT, '.tools/node');
/** This run's own mark (scripts/test-run.js): the runs started here carry another. */
const OUTER_RUN = process.env.AT_TEST_RUN;

let dir: string;
let repo: string;

/** PATH with Node 20 first and no Node 24 on it; npm is the machine's (it runs on the first node). */
const pathWithNode20 = () => {
  const entries = (process.env.PATH ?? '').split(delimiter);
  const npmDir = entries.find((d) => existsSync(join(d, 'npm')) && !d.startsWith(PROJECT_NODE));
  if (!npmDir) throw new Error('no npm on PATH');
  const others = entries.filter((d) => d !== dirname(process.execPath) && !d.startsWith(PROJECT_NODE));
  return [dirname(NODE_20), npmDir, ...others].join(delimiter);
};

/** The environment of a command run as a user would: none of this run's own test settings. */
const userEnv = (more: Record<string, string>) => {
  const env: Record<string, string | undefined> = { ...process.env, PATH: pathWithNode20(), ...more };
  for (const key of ['JEST_ARGS', 'AT_TEST_SERVERS', 'TEMPORAL_ADDRESS', 'JEST_WORKER_ID', 'NODE_OPTIONS']) delete env[key];
  return env;
};

const npmTest = (files: string) => {
  const child = spawn('npm', ['test'], {
    cwd: repo,
    env: userEnv({ ACTION_TRIGGERS_TEST_FILES: files }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
};

/** Polls until `found` gives a value; fails after `ms`. */
const poll = async <T>(found: () => T | undefined, ms: number, what: string): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const value = found();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`${what}: not seen within ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

/** The processes of the run started here (the one mark other than this run's). */
const innerRun = () => {
  const runs = [...markedRuns(OUTER_RUN).entries()];
  return runs.length === 1 ? { id: runs[0]![0], pids: runs[0]![1] } : undefined;
};

const killGroup = (child: ChildProcess, signal: NodeJS.Signals) => {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    /* gone */
  }
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'at-test-command-'));
  repo = join(dir, 'action-triggers');
  execFileSync('git', ['clone', '-q', ROOT, repo]);
  symlinkSync(join(ROOT, '.tools'), join(repo, '.tools'));
  execFileSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: repo, env: userEnv({}), stdio: 'pipe', timeout: 300_000 });
}, 330_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('npm test on Node 20 runs on Node 24 and passes its integration tests', async () => {
  expect(execFileSync('node', ['--version'], { env: userEnv({}) }).toString()).toMatch(/^v20\./);
  const run = npmTest('integration/triggers/stored-events');
  const code = await run.exited;
  expect(run.output()).toMatch(/the node on PATH is v20\.[\d.]+; running on Node v24\./);
  expect(run.output()).toMatch(/PASS integration test\/integration\/triggers\/stored-events\.test\.ts/);
  expect(code).toBe(0);
  expect(innerRun()).toBeUndefined();
}, 240_000);

/** Interrupts a run once `ready` holds of its processes; then nothing of it may be left. */
const interrupted = async (files: string, ready: (commands: string[]) => boolean, interrupt: (child: ChildProcess) => void) => {
  const run = npmTest(files);
  try {
    const inner = await poll(
      () => {
        const r = innerRun();
        return r && ready(r.pids.map(commandLine)) ? r : undefined;
      },
      180_000,
      'the run reaching the point of interruption',
    );
    const servers = inner.pids.map(commandLine);
    const ports = listeningPorts(inner.pids);
    interrupt(run.child);
    const code = await Promise.race([run.exited, new Promise((r) => setTimeout(() => r('still running'), 60_000).unref())]);
    expect(code).not.toBe(0);
    expect(code).not.toBe('still running');
    // The run's own sweep ends when its last process is gone: nothing of it is left, no port held.
    expect(markedRuns(OUTER_RUN).get(inner.id) ?? []).toEqual([]);
    expect(stillListening(ports)).toEqual([]);
    return { servers, ports, output: run.output() };
  } finally {
    killGroup(run.child, 'SIGKILL');
  }
};

test('interrupted during its global setup (SIGINT to its group), the run leaves no process and no port', async () => {
  const { servers, output } = await interrupted(
    'integration/triggers/stored-events',
    (commands) => commands.some((c) => c.includes('temporal server start-dev')) && commands.some((c) => c.includes('redis-server')),
    (child) => killGroup(child, 'SIGINT'),
  );
  expect(servers.length).toBeGreaterThan(2);
  expect(output).not.toMatch(/PASS/);
}, 240_000);

test('interrupted while its tests run (SIGTERM to npm), the run leaves no process and no port', async () => {
  const { servers, ports } = await interrupted(
    'integration/processes/signing-secret-start',
    (commands) => commands.some((c) => c.includes('dist/src/main.js')),
    (child) => child.kill('SIGTERM'),
  );
  for (const server of ['temporal server start-dev', 'redis-server', 'moto_server', 'rabbitmq'])
    expect(servers.some((c) => c.includes(server))).toBe(true);
  expect(ports.length).toBeGreaterThan(4);
}, 240_000);
