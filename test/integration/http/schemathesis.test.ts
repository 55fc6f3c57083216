import { spawn } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServerProcess, stopServerProcess, ServerProcess } from '../../support/server-process';
import { tempDir } from '../../support/test-app';

/**
 * The OpenAPI document tells the truth: schemathesis (pinned, installed by
 * scripts/install-tools.sh) generates valid and invalid requests from /api/openapi.json and runs
 * every check against the real server. test/schemathesis/schemathesis.toml says why any check
 * is adjusted.
 *
 * The server runs on a task queue of its own. Network traffic stays on loopback: its
 * webhook_url_patterns admit only a closed loopback port (9, discard: nothing listens there),
 * so a delivery can only ever be refused by that port; no brokers are configured. Private
 * targets are allowed for that reason alone (they are refused at write time otherwise).
 */
// About five minutes alone on two cores, nine beside the rest of `npm test` (the coverage phase
// walks every level of the condition schema): the bound leaves room for a slower machine.
jest.setTimeout(20 * 60_000);

const ROOT = join(__dirname, '..', '..', '..');
const ST = join(ROOT, '.tools', 'schemathesis', 'bin', 'st');
const KEY = 'schemathesis-secret';
/** Cases per operation and phase: enough to find every known discrepancy between document and behaviour (the coverage phase, most of the run, is not bounded by it). */
const MAX_EXAMPLES = '25';
const SEED = '20261122';

let dir: string;
let server: ServerProcess;
beforeAll(async () => {
  dir = tempDir('at-schemathesis-');
  const config = join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({
      api_keys: [{ id: 'schemathesis', key: KEY, scopes: ['triggers:read', 'triggers:write', 'signals:write', 'metrics:read'] }],
      webhook_url_patterns: ['^http://127\\.0\\.0\\.1:9/'],
      allow_private_targets: true,
    }),
  );
  server = await startServerProcess(
    {
      ACTION_TRIGGERS_CONFIG: config,
      DATA_DIR: join(dir, 'data'),
      TEMPORAL_TASK_QUEUE: `schemathesis-${process.pid}`,
    },
    60_000,
  );
});
afterAll(async () => {
  if (server) await stopServerProcess(server);
  rmSync(dir, { recursive: true, force: true });
});

const runSchemathesis = (url: string) =>
  new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(
      ST,
      [
        '--config-file',
        join(ROOT, 'test', 'schemathesis', 'schemathesis.toml'),
        'run',
        `${url}/api/openapi.json`,
        '--header',
        `Authorization: Bearer ${KEY}`,
        '--mode',
        'all',
        '--max-examples',
        MAX_EXAMPLES,
        '--seed',
        SEED,
        // One worker: Hypothesis's lambda descriptions race in CPython 3.11's ast.parse across threads.
        '--workers',
        '1',
        '--request-timeout',
        '60',
        '--no-color',
      ],
      { cwd: dir, env: { ...process.env, NO_COLOR: '1' } },
    );
    let output = '';
    child.stdout.on('data', (c: Buffer) => {
      output += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      output += c.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, output }));
  });

test('schemathesis finds no difference between the OpenAPI document and the behaviour (all checks, valid and invalid data)', async () => {
  if (!existsSync(ST)) throw new Error(`no schemathesis at ${ST}: run bash scripts/install-tools.sh`);
  const { code, output } = await runSchemathesis(server.url);
  if (code !== 0) process.stdout.write(`schemathesis exited with ${code}:\n${output}\n`);
  expect(output).toMatch(/Selected: 29\/31/);
  expect(code).toBe(0);
});
