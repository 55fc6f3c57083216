import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { freePort } from '../../support/free-port';
import { testServers } from '../../support/servers';
import { tempDir } from '../../support/test-app';

/**
 * `npm start` on a machine whose `node` is 20 (older than the service needs): the service runs on
 * the project's own Node 24, saying so, or the command stops at once saying what to do. Never a
 * bare segmentation fault.
 */
const ROOT = join(__dirname, '..', '..', '..');
const NODE_20 = join(ROOT, '.tools/node20/bin/node');
const PROJECT_NODE = join(ROOT, '.tools/node');

/** PATH with Node 20 first and no other Node 24 on it; npm is the machine's (it runs on the first node). */
const pathWithNode20 = () => {
  const npmDir = (process.env.PATH ?? '').split(delimiter).find((d) => existsSync(join(d, 'npm')) && !d.startsWith(PROJECT_NODE));
  if (!npmDir) throw new Error('no npm on PATH');
  const others = (process.env.PATH ?? '').split(delimiter).filter((d) => d !== dirname(process.execPath) && !d.startsWith(PROJECT_NODE));
  return [dirname(NODE_20), npmDir, ...others].join(delimiter);
};

const npmStart = (env: Record<string, string>) => {
  const child = spawn('npm', ['start'], {
    cwd: ROOT,
    env: { ...process.env, PATH: pathWithNode20(), PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    out += c.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.on('exit', (code, signal) => r({ code, signal })),
  );
  return {
    child,
    output: () => out,
    exited,
    stop: () => {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        /* gone */
      }
    },
  };
};

const configIn = (dir: string) => {
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify({ allow_private_targets: true }));
  return file;
};

beforeAll(() => {
  expect(existsSync(NODE_20)).toBe(true); // scripts/install-tools.sh installs it
});

test("with node 20 first on PATH, npm start runs the service on the project's Node 24 and says so in one line", async () => {
  const dir = tempDir('at-old-node-');
  const configFile = configIn(dir);
  const run = npmStart({
    DATA_DIR: dir,
    ACTION_TRIGGERS_CONFIG: configFile,
    TEMPORAL_ADDRESS: testServers().temporalAddress,
    TEMPORAL_TASK_QUEUE: `old-node-${process.pid}`,
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const done = () => {
        clearInterval(timer);
        clearTimeout(deadline);
      };
      const timer = setInterval(() => {
        const m = /"url":"(http:\/\/[\d.]+:\d+)"/.exec(run.output());
        if (m) {
          done();
          resolve(m[1]!);
        }
      }, 100);
      const deadline = setTimeout(() => {
        done();
        reject(new Error(`not listening in 90 s:\n${run.output()}`));
      }, 90_000);
      void run.exited.then((e) => {
        done();
        reject(new Error(`npm start exited (${JSON.stringify(e)}):\n${run.output()}`));
      });
    });
    for (let deadline = Date.now() + 30_000; (await fetch(`${url}/readyz`)).status !== 200 && Date.now() < deadline;)
      await new Promise((r) => setTimeout(r, 250));
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    const said = run
      .output()
      .split('\n')
      .filter((l) => l.startsWith('action-triggers: the node on PATH'));
    expect(said).toEqual([
      expect.stringMatching(/^action-triggers: the node on PATH is v20\.\d+\.\d+; running on Node v24\.\d+\.\d+ from .*\.tools\/node$/),
    ]);
    expect(run.output()).toContain(`"config_file":"${configFile}"`); // the start log names the config it read
  } finally {
    run.stop();
    await run.exited;
    rmSync(dir, { recursive: true, force: true });
  }
}, 150_000);

test('with node 20 first on PATH and Node 24 not to be had, npm start exits non-zero within 10 s saying what to do', async () => {
  const dir = tempDir('at-old-node-');
  const nodeDir = mkdtempSync(join(tmpdir(), 'at-no-node-'));
  const started = Date.now();
  const run = npmStart({
    DATA_DIR: dir,
    ACTION_TRIGGERS_CONFIG: configIn(dir),
    TEMPORAL_ADDRESS: testServers().temporalAddress,
    ACTION_TRIGGERS_NODE_DIR: join(nodeDir, 'node'),
    // A registry nobody answers at: the fetch of Node 24 fails as it does offline.
    npm_config_registry: `http://127.0.0.1:${await freePort()}/`,
  });
  try {
    const exit = await run.exited;
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(exit.signal).toBeNull();
    expect(exit.code).not.toBe(0);
    expect(exit.code).not.toBe(139);
    expect(run.output()).toMatch(
      /action-triggers needs Node 24 or newer; the node on PATH is v20\.\d+\.\d+, and Node 24 could not be fetched/,
    );
    expect(run.output()).toContain("Fix: install Node 24 (e.g. 'nvm install 24'), or run 'sh scripts/install-node.sh'");
    expect(run.output()).not.toMatch(/Segmentation fault/);
  } finally {
    run.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(nodeDir, { recursive: true, force: true });
  }
}, 30_000);
