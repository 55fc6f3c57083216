import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import request from 'supertest';
import { MAX_JSON_DEPTH, MAX_RENDERED_CHARS } from '../../../src/kernel/limits';
import { startDispatchHarness } from '../../support/dispatch-harness';
import { startReceiver, Receiver } from '../../support/receiver';
import { waitForDispatch } from '../../support/signals';
import { postTrigger, triggerBody } from '../../support/trigger-body';

/**
 * Bodies built to hurt: prototype keys, deep nesting, templates that made a regex backtrack.
 * Each is a 400 naming the field, or harmless; never a 5xx, never stored, never a frozen process.
 */
let h: Awaited<ReturnType<typeof startDispatchHarness>>;
let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
  h = await startDispatchHarness({});
});
afterAll(async () => {
  await h?.close();
  await rx?.close();
});

const base = (model: string) => triggerBody({ model, webhooks: [{ url: rx.url(`/${model}`), http_method: 'POST' }] });
/** Raw JSON text: an object literal with `__proto__` in a test would set a prototype, not send a key. */
const sendRaw = (verb: 'post' | 'put' | 'patch', url: string, json: string) =>
  request(h.app)[verb](url).set('content-type', 'application/json').send(json);
const create = (model: string, over: Record<string, unknown> = {}) => postTrigger(h.app, { ...base(model), ...over });
const errorPaths = (res: request.Response) => (res.body.errors as Array<{ path: string }>).map((e) => e.path);
/** `{"a":{"a":…{"a":leaf}}}`, `levels` objects deep. */
const nested = (levels: number, leaf = '1') => `${'{"a":'.repeat(levels)}${leaf}${'}'.repeat(levels)}`;
const signalWith = (instanceJson: string, model = 'deep') =>
  `{"signal":"post_save","app_label":"shop","model_name":"${model}","instance":${instanceJson}}`;

describe('prototype keys are refused with their path, and nothing is stored', () => {
  test('PATCH {"__proto__":{"payload":…}} does not set the payload', async () => {
    const t = await create('proto-patch');
    const res = await sendRaw('patch', `/api/action-triggers/${t.id}`, '{"__proto__":{"payload":{"x":1}}}').expect(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(errorPaths(res)).toEqual(['__proto__']);
    const after = await request(h.app).get(`/api/action-triggers/${t.id}`).expect(200);
    expect(after.body.payload).toBeUndefined();
    expect(after.body.version).toBe(t.version);
  });

  test.each([
    ['post', '{"payload":{"__proto__":{"x":1}}}', 'payload.__proto__'],
    ['post', '{"payload":{"list":[{"constructor":{"x":1}}]}}', 'payload.list[0].constructor'],
    [
      'put',
      '{"webhooks":[{"url":"http://127.0.0.1:9/","http_method":"POST","headers":{"prototype":"x"}}]}',
      'webhooks[0].headers.prototype',
    ],
    ['patch', '{"payload":{"__proto__":{"x":1}}}', 'payload.__proto__'],
  ] as const)('%s %s → 400 at %s', async (verb, extra, path) => {
    const t = await create(`proto-${verb}`);
    const body = JSON.stringify({ ...base(`proto-${verb}`), ...(verb === 'put' ? { id: t.id } : {}) });
    const json = verb === 'patch' ? extra : `${body.slice(0, -1)},${extra.slice(1)}`;
    const url = verb === 'post' ? '/api/action-triggers' : `/api/action-triggers/${t.id}`;
    const before = (await request(h.app).get('/api/action-triggers?limit=500')).text;
    const res = await sendRaw(verb, url, json).expect(400);
    expect(errorPaths(res)).toEqual([path]);
    expect((await request(h.app).get('/api/action-triggers?limit=500')).text).toBe(before);
  });

  test('a signal batch names the signal and key: [1].instance.constructor', async () => {
    const res = await sendRaw('post', '/api/signals', `[${signalWith('{"id":1}')},${signalWith('{"constructor":{"x":1}}')}]`).expect(400);
    expect(errorPaths(res)).toEqual(['[1].instance.constructor']);
  });
});

describe(`nesting deeper than MAX_JSON_DEPTH (${MAX_JSON_DEPTH}) is a 400 with the path where it went too deep`, () => {
  test('a payload nested 10,000 levels', async () => {
    const body = JSON.stringify(base('deep-payload'));
    const res = await sendRaw('post', '/api/action-triggers', `${body.slice(0, -1)},"payload":${nested(10_000)}}`).expect(400);
    expect(errorPaths(res)).toEqual([`payload${'.a'.repeat(MAX_JSON_DEPTH - 1)}`]);
    expect(res.body.errors[0].message).toMatch(`deeper than ${MAX_JSON_DEPTH} levels`);
  });

  test('a trigger body of exactly MAX_JSON_DEPTH levels is accepted; one more is refused', async () => {
    const body = JSON.stringify(base('depth-edge')).slice(0, -1);
    // The body is level 1, so a payload of MAX_JSON_DEPTH - 1 objects makes MAX_JSON_DEPTH.
    await sendRaw('post', '/api/action-triggers', `${body},"payload":${nested(MAX_JSON_DEPTH - 1)}}`).expect(201);
    const res = await sendRaw('post', '/api/action-triggers', `${body},"payload":${nested(MAX_JSON_DEPTH)}}`).expect(400);
    expect(errorPaths(res)).toEqual([`payload${'.a'.repeat(MAX_JSON_DEPTH - 1)}`]);
  });

  test('a signal instance nested 5,000 levels is a 400 at intake, not a 503 to retry for ever', async () => {
    const res = await sendRaw('post', '/api/signals', signalWith(nested(5_000))).expect(400);
    expect(errorPaths(res)).toEqual([`instance${'.a'.repeat(MAX_JSON_DEPTH - 1)}`]);
  });

  test('a signal of exactly MAX_JSON_DEPTH levels is accepted; one more is refused (in a batch, the array counts)', async () => {
    await sendRaw('post', '/api/signals', signalWith(nested(MAX_JSON_DEPTH - 1))).expect(202);
    const one = await sendRaw('post', '/api/signals', signalWith(nested(MAX_JSON_DEPTH))).expect(400);
    expect(errorPaths(one)).toEqual([`instance${'.a'.repeat(MAX_JSON_DEPTH - 1)}`]);
    const batch = await sendRaw('post', '/api/signals', `[${signalWith(nested(MAX_JSON_DEPTH - 1))}]`).expect(400);
    expect(errorPaths(batch)).toEqual([`[0].instance${'.a'.repeat(MAX_JSON_DEPTH - 2)}`]);
  });

  test('arrays count as levels too: 100,000 nested arrays', async () => {
    const res = await sendRaw('post', '/api/signals', `${'['.repeat(100_000)}${']'.repeat(100_000)}`).expect(400);
    expect(errorPaths(res)).toEqual([`${'[0]'.repeat(MAX_JSON_DEPTH)}`]);
  });
});

describe('a template that made the old regex backtrack for minutes', () => {
  let server: Server;
  let origin: string;
  beforeAll(async () => {
    server = createServer(h.app);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  test('"{{" + 6,000 spaces + "}}" is refused at write time, with its path', async () => {
    const res = await request(h.app)
      .post('/api/action-triggers')
      .send({ ...base('freeze-refused'), payload: { x: `{{${' '.repeat(6000)}}}` } })
      .expect(400);
    expect(errorPaths(res)).toEqual(['payload.x']);
    expect(res.body.errors[0].message.length).toBeLessThan(200);
  });

  test('"{{" + 6,000 spaces (an unclosed brace, so text) renders at once, and /healthz answers throughout', async () => {
    const text = `{{${' '.repeat(6000)}`;
    await request(h.app)
      .post('/api/action-triggers')
      .send({
        ...base('freeze'),
        webhooks: [{ url: rx.url('/freeze'), http_method: 'POST', headers: { 'x-t': `a${text}b` } }],
        payload: text,
      })
      .expect(201);
    let slowest = 0;
    let polling = true;
    const poll = (async () => {
      while (polling) {
        const start = Date.now();
        expect((await fetch(`${origin}/healthz`)).status).toBe(200);
        slowest = Math.max(slowest, Date.now() - start);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const s = (
      await request(h.app)
        .post('/api/signals')
        .send({ signal: 'post_save', app_label: 'shop', model_name: 'freeze', instance: { id: 1 } })
        .expect(202)
    ).body as { id: string };
    const done = await waitForDispatch(h.app, s.id);
    polling = false;
    await poll;
    expect(done.actions[0]).toMatchObject({ state: 'delivered' });
    expect(rx.on('/freeze')[0]!.body).toBe(text);
    expect(rx.on('/freeze')[0]!.headers['x-t']).toBe(`a${text}b`);
    expect(slowest).toBeLessThan(1000);
  });
});

test('a template that repeats a large value past MAX_RENDERED_CHARS: the action fails once, for good, and nothing is sent', async () => {
  await request(h.app)
    .post('/api/action-triggers')
    .send({ ...base('amplified'), payload: '{{ instance.blob }}'.repeat(100) })
    .expect(201);
  const s = (
    await request(h.app)
      .post('/api/signals')
      .send({ signal: 'post_save', app_label: 'shop', model_name: 'amplified', instance: { blob: 'x'.repeat(100_000) } })
      .expect(202)
  ).body as { id: string };
  const done = await waitForDispatch(h.app, s.id);
  expect(done.actions[0]).toMatchObject({
    state: 'failed',
    attempts: 1,
    last_error: expect.stringContaining(`exceed ${MAX_RENDERED_CHARS} characters`),
  });
  expect(rx.on('/amplified')).toHaveLength(0);
});
