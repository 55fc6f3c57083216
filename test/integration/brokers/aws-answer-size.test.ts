import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { join } from 'node:path';
import { ServerProcess, startServerProcess, stopServerProcess } from '../../support/server-process';
import { testServers } from '../../support/servers';
import { tempDir } from '../../support/test-app';
import { triggerBody } from '../../support/trigger-body';

/**
 * An endpoint that is not AWS (LocalStack, a proxy, a host a trigger may set) answers what it
 * likes: a Lambda API answering 160 MB to each Invoke. The service (API and worker in one
 * process, as `npm start`) reads at most 1 MiB of any AWS answer, so its memory stays put, and
 * the function having run, the delivery counts.
 */
const ANSWER_MB = 160;
const ALLOWED_GROWTH_MB = 50;

let dir: string;
let server: ServerProcess;
let lambda: Server;
const sent: number[] = [];
const invoked: string[] = [];

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

beforeAll(async () => {
  const chunk = Buffer.alloc(1024 * 1024, 'x');
  lambda = createServer((req, res) => {
    invoked.push(req.url ?? '');
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-amz-executed-version': '$LATEST' });
      let mb = 0;
      const more = () => {
        while (mb < ANSWER_MB) {
          mb++;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      res.on('close', () => sent.push(mb));
      res.on('error', () => undefined);
      more();
    });
  });
  await new Promise<void>((r) => lambda.listen(0, '127.0.0.1', r));
  dir = tempDir('at-aws-answer-');
  const endpoint = `http://127.0.0.1:${(lambda.address() as { port: number }).port}`;
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({
      brokers: {
        fn: {
          broker_type: 'aws_lambda',
          conn_details: { region_name: 'us-east-1', aws_access_key_id: 'test', aws_secret_access_key: 'test', endpoint_url: endpoint },
          params: { FunctionName: 'answers-big' },
        },
      },
    }),
  );
  server = await startServerProcess(
    {
      DATA_DIR: join(dir, 'data'),
      ACTION_TRIGGERS_CONFIG: join(dir, 'config.json'),
      TEMPORAL_ADDRESS: testServers().temporalAddress,
      TEMPORAL_TASK_QUEUE: `aws-answer-${process.pid}-${Date.now()}`,
      WORKFLOW_BUNDLE_PATH: testServers().workflowBundlePath,
    },
    60_000,
  );
}, 90_000);

afterAll(async () => {
  if (server) await stopServerProcess(server, 'SIGKILL');
  lambda?.close();
  rmSync(dir, { recursive: true, force: true });
});

const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await res.json()) as Record<string, unknown>;
};

test(`a ${ANSWER_MB} MB answer from a Lambda API is not read: the worker's memory stays within ${ALLOWED_GROWTH_MB} MB, the delivery counts`, async () => {
  const trigger = await api('POST', '/api/action-triggers', triggerBody({ model: 'big', msg_broker_queues: [{ name: 'fn' }] }));
  expect(trigger.id).toEqual(expect.any(String));
  // Warm: the first delivery loads the AWS SDK and opens the client; measure from the second.
  const deliver = async (id: string) => {
    await api('POST', '/api/signals', { id, signal: 'post_save', app_label: 'shop', model_name: 'big', instance: { id: 1 } });
    const end = Date.now() + 60_000;
    for (;;) {
      const status = await api('GET', `/api/signals/${id}`);
      if (status.state === 'completed') return status as { actions: Array<{ state: string; attempts: number }> };
      if (Date.now() > end) throw new Error(`not completed in 60 s: ${JSON.stringify(status)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const run = `${process.pid}-${Date.now()}`;
  await deliver(`${run}-warm`);
  const pid = server.child.pid!;
  const before = rssMb(pid);
  const samples: number[] = [];
  const sampler = setInterval(() => samples.push(rssMb(pid)), 25);
  try {
    const status = await deliver(`${run}-measured`);
    expect(status.actions).toEqual([expect.objectContaining({ state: 'delivered', attempts: 1 })]);
  } finally {
    clearInterval(sampler);
  }
  expect(Math.max(...samples) - before).toBeLessThan(ALLOWED_GROWTH_MB);
  expect(invoked).toHaveLength(2);
  expect(invoked[1]).toMatch(/\/functions\/answers-big\/invocations/);
  // The connection was closed after the first MiB or so: the endpoint could not send it all.
  expect(sent.every((mb) => mb < ANSWER_MB)).toBe(true);
}, 120_000);
