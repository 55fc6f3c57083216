import { settings } from '../../src/destinations/celery/settings';
import { taskMessage } from '../../src/destinations/celery/task-message';

const ok = (conn: Record<string, string>, params: Record<string, string>) => {
  const s = settings(conn, params);
  if (!s.ok) throw new Error(JSON.stringify(s.errors));
  return s.value;
};
const problems = (conn: Record<string, string>, params: Record<string, string>) => {
  const s = settings(conn, params);
  return s.ok ? [] : s.errors.map((e) => `${e.path}: ${e.message}`);
};

test("the broker URL's scheme picks the transport; the queue is Celery's default unless named", () => {
  expect(ok({ url: 'amqp://guest:guest@127.0.0.1:5672' }, { task: 'shop.tasks.order_paid' })).toEqual({
    url: 'amqp://guest:guest@127.0.0.1:5672',
    transport: 'amqp',
    task: 'shop.tasks.order_paid',
    queue: 'celery',
    exchange: '',
    routingKey: 'celery',
  });
  expect(ok({ url: 'rediss://:pw@cache:6380/1' }, { task: 't', queue: 'orders', countdown: '30', expires: '3600' })).toMatchObject({
    transport: 'redis',
    queue: 'orders',
    countdownSecs: 30,
    expiresSecs: 3600,
  });
  // A URL given as a dynamic value is checked once rendered, in the worker.
  expect(ok({ url: '{{ env.CELERY_BROKER_URL }}' }, { task: 't' })).toMatchObject({ task: 't' });
});

test('each bad key is named with why, all at once', () => {
  expect(problems({ url: 'http://broker' }, { countdown: '-1', expires: '0', priority: '300' })).toEqual([
    'conn_details.url: must be an amqp://, amqps://, redis:// or rediss:// URL (your Celery broker_url)',
    'params.task: is required (a task name, at most 255 bytes)',
    'params.countdown: must be a number of seconds from 0 to 604800',
    'params.expires: must be a number of seconds, more than 0',
    'params.priority: must be a whole number from 0 to 255',
  ]);
  expect(problems({ url: 'redis://127.0.0.1:6379/0' }, { task: 't', exchange: 'x', priority: '5' })).toEqual([
    "params.exchange: is for RabbitMQ only: over Redis, Celery's transport reads the queue's list, with no exchange or priority",
    "params.priority: is for RabbitMQ only: over Redis, Celery's transport reads the queue's list, with no exchange or priority",
  ]);
  expect(problems({ url: 'amqp://h' }, { task: 'x'.repeat(256) })).toEqual(['params.task: is longer than 255 bytes']);
});

test('a task message, protocol 2: a JSON object is the keyword arguments, anything else the one argument; the delivery id is the task id', () => {
  const s = ok({ url: 'amqp://h' }, { task: 'shop.tasks.order_paid', countdown: '10', expires: '60' });
  const now = Date.parse('2026-12-08T00:00:00Z');
  const m = taskMessage(
    s,
    { body: '{"order":42,"status":"paid"}', contentType: 'application/json', deliveryId: 'sig-1.t.q0', traceparent: 'tp' },
    now,
  );
  expect(JSON.parse(m.body)).toEqual([[], { order: 42, status: 'paid' }, { callbacks: null, errbacks: null, chain: null, chord: null }]);
  expect(m.headers).toEqual({
    lang: 'py',
    task: 'shop.tasks.order_paid',
    id: 'sig-1.t.q0',
    shadow: null,
    eta: '2026-12-08T00:00:10.000Z',
    expires: '2026-12-08T00:01:00.000Z',
    group: null,
    group_index: null,
    retries: 0,
    timelimit: [null, null],
    root_id: 'sig-1.t.q0',
    parent_id: null,
    argsrepr: '[]',
    kwargsrepr: '{"order":42,"status":"paid"}',
    origin: 'action-triggers',
    ignore_result: false,
    traceparent: 'tp',
  });
  const plain = ok({ url: 'amqp://h' }, { task: 't' });
  expect(JSON.parse(taskMessage(plain, { body: '[1,2]', contentType: 'application/json', deliveryId: 'd' }, now).body)[0]).toEqual([
    [1, 2],
  ]);
  expect(JSON.parse(taskMessage(plain, { body: 'hello', contentType: 'text/plain; charset=utf-8', deliveryId: 'd' }, now).body)[0]).toEqual(
    ['hello'],
  );
  const noTimes = taskMessage(plain, { body: '{}', contentType: 'application/json', deliveryId: 'd' }, now).headers;
  expect([noTimes.eta, noTimes.expires, 'traceparent' in noTimes]).toEqual([null, null, false]);
  // The reprs are for the worker's log: cut, while the body keeps everything.
  const long = taskMessage(
    plain,
    { body: JSON.stringify({ note: 'x'.repeat(5000) }), contentType: 'application/json', deliveryId: 'd' },
    now,
  );
  expect(String(long.headers.kwargsrepr)).toHaveLength(1024);
  expect(JSON.parse(long.body)[1].note).toHaveLength(5000);
});
