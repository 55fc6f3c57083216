import { ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { Server } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { connect as amqpConnect } from 'amqplib';
import { Redis } from 'ioredis';
import request from 'supertest';
import { startDispatchHarness } from '../../support/dispatch-harness';
import { freePort } from '../../support/free-port';
import { amqpUrlOf, startRabbit, stopRabbit } from '../../support/rabbitmq';
import { startRedis } from '../../support/brokers/redis';
import { stopBroker } from '../../support/brokers';
import { waitForDispatch } from '../../support/signals';
import { tempDir } from '../../support/test-app';
import { postTrigger, triggerBody } from '../../support/trigger-body';

/**
 * A real Celery worker (PyPI's celery, in a small Django project: test/fixtures/celery-django)
 * runs the task a trigger's celery action sends, over RabbitMQ and then over Redis, each broker
 * a private server this file may stop. The order is saved in that Django project, whose
 * action_triggers_client app sends the signal with `previous`; the trigger fires on the
 * transition to paid only.
 */
const ROOT = join(__dirname, '..', '..', '..');
const PROJECT = join(ROOT, 'test', 'fixtures', 'celery-django');
const PYTHON = join(ROOT, '.tools', 'python-client', 'bin', 'python');

interface Broker {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Messages waiting in the queue. */
  waiting(queue: string): Promise<number>;
}

const rabbitBroker = async (dir: string): Promise<Broker> => {
  const node = { dir: join(dir, 'rabbit'), port: await freePort(), distPort: await freePort(), name: `at-celery-${process.pid}@localhost` };
  const url = amqpUrlOf(node);
  let pgid = await startRabbit(node);
  return {
    url,
    stop: () => stopRabbit(pgid, url),
    start: async () => {
      pgid = await startRabbit(node);
    },
    waiting: async (queue) => {
      const conn = await amqpConnect(url);
      try {
        const channel = await conn.createChannel();
        channel.on('error', () => undefined); // a queue not declared yet closes the channel: 0 waiting
        return (await channel.checkQueue(queue)).messageCount;
      } catch (e) {
        if ((e as { code?: unknown }).code === 404) return 0;
        throw e;
      } finally {
        await conn.close().catch(() => undefined);
      }
    },
  };
};

const redisBroker = async (dir: string): Promise<Broker> => {
  let server = await startRedis(join(dir, 'redis'));
  return {
    url: `${server.url}/0`,
    stop: async () => stopBroker(server),
    start: async () => {
      server = await startRedis(join(dir, 'redis'), server.port);
    },
    waiting: async (queue) => {
      const client = new Redis(server.url);
      try {
        return await client.llen(queue);
      } finally {
        client.disconnect();
      }
    },
  };
};

describe.each([
  ['RabbitMQ', rabbitBroker],
  ['Redis', redisBroker],
])('a Celery worker on %s', (_name, startBroker) => {
  let dir: string;
  let broker: Broker;
  let h: Awaited<ReturnType<typeof startDispatchHarness>>;
  let listening: Server;
  let worker: ChildProcess | undefined;
  let workerLog = '';
  const queue = `orders-${process.pid}`;
  const env = () => ({
    ...process.env,
    DJANGO_SETTINGS_MODULE: 'celeryproject.settings',
    ATC_TEST_DB: join(dir, 'shop.sqlite3'),
    ATC_BASE_URL: `http://127.0.0.1:${(listening.address() as { port: number }).port}`,
    CELERY_BROKER_URL: broker.url,
    CELERY_QUEUE: queue,
    CELERY_TASK_RECORD: join(dir, 'ran.jsonl'),
  });
  // Not spawnSync: the service answering the relay runs in this process.
  const manage = async (...args: string[]) => {
    try {
      return (await promisify(execFile)(PYTHON, ['manage.py', ...args], { cwd: PROJECT, env: env(), timeout: 60_000 })).stdout.trim();
    } catch (e) {
      throw new Error(`manage.py ${args[0]} failed: ${(e as { stderr?: string }).stderr ?? String(e)}`);
    }
  };
  const ran = () =>
    existsSync(join(dir, 'ran.jsonl'))
      ? readFileSync(join(dir, 'ran.jsonl'), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { id: string; args: unknown[]; kwargs: Record<string, unknown> })
      : [];
  const until = async (done: () => boolean | Promise<boolean>, ms: number, what: string) => {
    const end = Date.now() + ms;
    while (!(await done())) {
      if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms; worker log:\n${workerLog.slice(-4000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const startWorker = async () => {
    worker = spawn(
      PYTHON,
      [
        '-m',
        'celery',
        '-A',
        'celeryproject',
        'worker',
        '--pool=solo',
        '--without-gossip',
        '--without-mingle',
        '--without-heartbeat',
        '-Q',
        queue,
        '--loglevel=INFO',
      ],
      { cwd: PROJECT, env: env(), stdio: ['ignore', 'pipe', 'pipe'], detached: true },
    );
    worker.stdout!.on('data', (c: Buffer) => (workerLog += c.toString()));
    worker.stderr!.on('data', (c: Buffer) => (workerLog += c.toString()));
    await until(() => /celery@\S+ ready\./.test(workerLog), 60_000, 'the worker starting');
  };
  /** Saves an order in the Django project (created pending, then paid), then runs its relay once; the signal ids of the two saves. */
  const saveOrderPaid = async () => {
    const id = await manage(
      'shell',
      '-c',
      "from shop.models import Order\no = Order.objects.create(total='12.50')\no.status = 'paid'\no.save()\nprint(o.id)",
    );
    await manage('action_triggers_relay', '--once');
    return Number(id.split('\n').pop());
  };
  let triggerId: string;
  /** The task ran under its delivery's id (`<signal>.<trigger>.q0`), and the service counts that delivery delivered. */
  const expectDeliveredAs = async (taskId: string) => {
    const suffix = `.${triggerId}.q0`;
    expect(taskId.endsWith(suffix)).toBe(true);
    const status = await waitForDispatch(h.app, taskId.slice(0, -suffix.length), (s) => s.state === 'completed', 30_000);
    expect(status.actions.map((a: { delivery_id: string; state: string }) => [a.delivery_id, a.state])).toEqual([[taskId, 'delivered']]);
  };

  beforeAll(async () => {
    dir = tempDir('at-celery-');
    broker = await startBroker(dir);
    h = await startDispatchHarness({
      brokers: {
        tasks: { broker_type: 'celery', conn_details: { url: broker.url }, params: { task: 'shop.tasks.order_paid', queue } },
        unknown: { broker_type: 'celery', conn_details: { url: broker.url }, params: { task: 'shop.tasks.no_such_task', queue } },
      },
      retry: { initial_interval_secs: 0.5, backoff_coefficient: 2, max_interval_secs: 3, max_attempts: 40 },
    });
    listening = h.app.listen(0, '127.0.0.1');
    await new Promise((r) => listening.once('listening', r));
    await manage('migrate', '--verbosity', '0');
    triggerId = (
      await postTrigger(
        h.app,
        triggerBody({
          model: 'order',
          webhooks: [],
          msg_broker_queues: [{ name: 'tasks', timeout_secs: 5 }],
          condition: { 'instance.status': { $changed: { from: 'pending', to: 'paid' } } },
          payload: { order: '{{ instance.id }}', status: '{{ instance.status }}', was: '{{ previous.status }}' },
        }),
      )
    ).id;
    await postTrigger(h.app, triggerBody({ model: 'invoice', webhooks: [], msg_broker_queues: [{ name: 'unknown', timeout_secs: 5 }] }));
  }, 180_000);

  afterAll(async () => {
    if (worker?.pid) process.kill(-worker.pid, 'SIGKILL');
    listening?.close();
    await h?.close();
    await broker?.stop();
  });

  test('a save that meets the condition runs the task once with the rendered payload, on a worker started after the message was published', async () => {
    const order = await saveOrderPaid();
    await until(async () => (await broker.waiting(queue)) === 1, 60_000, 'the task message in the queue');
    await startWorker();
    await until(() => ran().length >= 1, 60_000, 'the task running');
    await new Promise((r) => setTimeout(r, 2_000)); // a second run would come within this
    // The creation (pending) meets no transition: one task, for the save to paid.
    expect(ran()).toEqual([{ id: expect.any(String), args: [], kwargs: { order, status: 'paid', was: 'pending' } }]);
    await expectDeliveredAs(ran()[0]!.id);
  }, 180_000);

  test('the broker stopped for 20 s: the publish is retried and the task runs once afterwards', async () => {
    if (!worker) await startWorker();
    await broker.stop();
    const order = await saveOrderPaid();
    await new Promise((r) => setTimeout(r, 20_000));
    await broker.start();
    await until(() => ran().some((r) => r.kwargs.order === order), 120_000, 'the task running after the outage');
    await new Promise((r) => setTimeout(r, 2_000));
    const runs = ran().filter((r) => r.kwargs.order === order);
    expect(runs).toEqual([{ id: expect.any(String), args: [], kwargs: { order, status: 'paid', was: 'pending' } }]);
    await expectDeliveredAs(runs[0]!.id);
  }, 240_000);

  test("a task name the worker does not know is Celery's own unregistered task, on the worker's side: the service sees the publish confirmed", async () => {
    if (!worker) await startWorker();
    const { id } = (
      await request(h.app)
        .post('/api/signals')
        .send({ signal: 'post_save', app_label: 'shop', model_name: 'invoice', instance: { id: 7 } })
        .expect(202)
    ).body as { id: string };
    const status = await waitForDispatch(h.app, id, (s) => s.state === 'completed', 60_000);
    expect(status.actions.map((a: { state: string }) => a.state)).toEqual(['delivered']);
    await until(() => workerLog.includes("Received unregistered task of type 'shop.tasks.no_such_task'"), 30_000, 'the worker refusing it');
  }, 120_000);
});
