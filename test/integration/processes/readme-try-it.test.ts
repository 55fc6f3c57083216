import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../support/free-port';
import { ServerProcess, startServerProcess, stopServerProcess } from '../../support/server-process';
import { testServers } from '../../support/servers';
import { tempDir } from '../../support/test-app';

/**
 * The README's "Try it", as written: its config, `npm run receiver` and its curl commands (ports
 * and the signal id made this run's own) end in a webhook the receiver prints.
 */
const ROOT = join(__dirname, '..', '..', '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const section = README.slice(README.indexOf('Try it on one machine'), README.indexOf('What the first start needs'));
const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);

let dir: string;
let server: ServerProcess;
let receiver: ChildProcess;
let printed = '';
let receiverPort: number;

beforeAll(async () => {
  expect(blocks).toHaveLength(2);
  const config = /^echo '(.*)' > action-triggers\.config\.json$/m.exec(blocks[0]!)?.[1];
  expect(config).toBeDefined();
  expect(blocks[0]).toMatch(/^npm run receiver/m);
  dir = tempDir('at-try-it-');
  writeFileSync(join(dir, 'config.json'), config!);
  receiverPort = await freePort();
  // What `npm run receiver` runs.
  const script = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.receiver!;
  const [command, ...args] = script.split(' ');
  receiver = spawn(command === 'node' ? process.execPath : command!, args, {
    cwd: ROOT,
    env: { ...process.env, RECEIVER_PORT: String(receiverPort) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  receiver.stdout!.on('data', (c: Buffer) => (printed += c.toString()));
  server = await startServerProcess(
    {
      DATA_DIR: join(dir, 'data'),
      ACTION_TRIGGERS_CONFIG: join(dir, 'config.json'),
      TEMPORAL_ADDRESS: testServers().temporalAddress,
      TEMPORAL_TASK_QUEUE: `try-it-${process.pid}-${Date.now()}`,
      WORKFLOW_BUNDLE_PATH: testServers().workflowBundlePath,
    },
    60_000,
  );
}, 90_000);

afterAll(async () => {
  if (server) await stopServerProcess(server, 'SIGKILL');
  receiver?.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

test("the README's Try it ends in a webhook the receiver prints", async () => {
  const signalId = `order-42-saved-${process.pid}-${Date.now()}`;
  const ours = (text: string) =>
    text.replaceAll('http://127.0.0.1:9000', `http://127.0.0.1:${receiverPort}`).replaceAll('order-42-saved', signalId);
  const curls = [...blocks[1]!.matchAll(/curl -s (?:-XPOST )?localhost:8080(\S+)(?: -H '[^']*')?(?: -d '([^']*)')?/g)];
  expect(curls.map((c) => c[1])).toEqual(['/api/action-triggers', '/api/action-triggers', '/api/signals', '/api/signals/order-42-saved']);
  for (const [, path, body] of curls.slice(0, 3)) {
    const res = await fetch(`${server.url}${ours(path!)}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: ours(body) }),
    });
    expect(res.status).toBeLessThan(300);
  }
  const end = Date.now() + 60_000;
  let state = '';
  while (state !== 'completed' && Date.now() < end) {
    state = ((await (await fetch(`${server.url}${ours(curls[3]![1]!)}`)).json()) as { state: string }).state;
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(state).toBe('completed');
  expect(printed).toMatch(/POST \/orders\n/);
  expect(printed).toContain(`webhook-id: ${signalId}.`);
  expect(printed).toContain('{"order":42}');
}, 90_000);
