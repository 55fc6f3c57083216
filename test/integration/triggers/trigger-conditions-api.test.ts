import request from 'supertest';
import { aTrigger, startTestApp } from '../../support/test-app';

/** A trigger's `condition` through the API: written, checked, kept in history and as_of, replaced, removed, dry-run. */
type App = Awaited<ReturnType<typeof startTestApp>>;
let t: App;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const PAID = { 'instance.status': { $changed: { from: 'pending', to: 'paid' } } };
const base = aTrigger({ msg_broker_queues: [], payload: undefined });
const create = async (over: Record<string, unknown>) =>
  (
    await request(t.app)
      .post('/api/action-triggers')
      .send({ ...base, ...over })
      .expect(201)
  ).body as { id: string; condition?: unknown };
const pathsOf = (res: request.Response) => (res.body as { errors: Array<{ path: string; message: string }> }).errors;

test('a condition is kept, shown, replaced whole by PATCH, removed by null, and each version is in history and as_of', async () => {
  const created = await create({ condition: PAID });
  expect(created.condition).toEqual(PAID);
  const { id } = created;
  // Inside a condition, null is a value: the patch replaces the condition, it does not merge it.
  const patched = await request(t.app)
    .patch(`/api/action-triggers/${id}`)
    .send({ condition: { 'instance.cancelled_at': null } })
    .expect(200);
  expect(patched.body.condition).toEqual({ 'instance.cancelled_at': null });
  const removed = await request(t.app).patch(`/api/action-triggers/${id}`).send({ condition: null }).expect(200);
  expect(removed.body).not.toHaveProperty('condition');
  const put = await request(t.app)
    .put(`/api/action-triggers/${id}`)
    .send({ ...base, id, condition: { 'signal.model_name': 'order' } })
    .expect(200);
  expect(put.body.condition).toEqual({ 'signal.model_name': 'order' });

  const history = (await request(t.app).get(`/api/action-triggers/${id}/history`).expect(200)).body as Array<{
    version: number;
    data: { definition: { condition?: unknown } };
    metadata: { occurred_at: string };
  }>;
  expect(history.map((e) => e.data.definition.condition)).toEqual([
    PAID,
    { 'instance.cancelled_at': null },
    undefined,
    { 'signal.model_name': 'order' },
  ]);
  const first = await request(t.app).get(`/api/action-triggers/${id}`).query({ as_of: history[0]!.metadata.occurred_at }).expect(200);
  expect(first.body.condition).toEqual(PAID);
});

test('a bad condition is 400 naming every bad path at once, and nothing is stored', async () => {
  const before = (await request(t.app).get('/api/action-triggers').expect(200)).body.length;
  const res = await request(t.app)
    .post('/api/action-triggers')
    .send({
      ...base,
      condition: {
        instanse: 1,
        $and: [{ 'instance.total': { $gt: 'a lot' } }, { 'instance.status': { $neq: 'paid' } }],
        'previous.status': { $changed: true },
        'signal.colour': 'red',
        'instance.note': { $not: 'void' },
      },
    })
    .expect(400);
  expect(pathsOf(res)).toEqual([
    { path: 'condition.instanse', message: expect.stringContaining('did you mean instance?') },
    { path: 'condition.$and[0].instance.total.$gt', message: 'must be a number or an RFC 3339 timestamp' },
    { path: 'condition.$and[1].instance.status.$neq', message: expect.stringContaining('did you mean $ne?') },
    { path: 'condition.previous.status.$changed', message: expect.stringContaining('instance.') },
    { path: 'condition.signal.colour', message: expect.stringContaining('signal.model_name') },
    { path: 'condition.instance.note.$not', message: expect.stringContaining('an object of operators') },
  ]);
  expect((await request(t.app).get('/api/action-triggers').expect(200)).body.length).toBe(before);
  const deep = (n: number): Record<string, unknown> => (n === 1 ? { 'instance.a': 1 } : { $nor: [deep(n - 1)] });
  expect(
    pathsOf(
      await request(t.app)
        .post('/api/action-triggers')
        .send({ ...base, condition: deep(9) })
        .expect(400),
    )[0]!.message,
  ).toMatch(/deeper than 8/);
  await request(t.app)
    .post('/api/action-triggers')
    .send({ ...base, condition: deep(8) })
    .expect(201);
  const many = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`instance.f${i}`, i]));
  expect(
    pathsOf(
      await request(t.app)
        .post('/api/action-triggers')
        .send({ ...base, condition: many })
        .expect(400),
    ),
  ).toEqual([{ path: 'condition', message: 'holds 65 comparisons; at most 64' }]);
});

test('a dry run shows the condition: held, false with its clause, or null for none; previous counts', async () => {
  const { id } = await create({ condition: PAID });
  const dry = (body: Record<string, unknown>) => request(t.app).post(`/api/action-triggers/${id}/test`).send(body).expect(200);
  const held = (await dry({ signal: 'post_save', instance: { status: 'paid' }, previous: { status: 'pending' } })).body;
  expect(held).toMatchObject({ would_dispatch: true, condition: { held: true } });
  expect(held.signal).not.toHaveProperty('previous');
  const noPrevious = (await dry({ signal: 'post_save', instance: { status: 'paid' } })).body;
  expect(noPrevious).toMatchObject({
    would_dispatch: false,
    condition: { held: false, clause: 'condition.instance.status.$changed', detail: 'the signal has no previous state' },
    not_dispatched_reason: 'the condition is false at condition.instance.status.$changed: the signal has no previous state',
  });
  const unconditioned = (
    await request(t.app)
      .post('/api/action-triggers/test')
      .send({ trigger: base, signal: 'post_save', instance: { id: 1 } })
      .expect(200)
  ).body;
  expect(unconditioned.condition).toBeNull();
  const notVoid = { ...base, condition: { 'instance.status': { $not: { $in: ['void', 'refunded'] } } } };
  const negated = (status: string) =>
    request(t.app).post('/api/action-triggers/test').send({ trigger: notVoid, signal: 'post_save', instance: { status } }).expect(200);
  expect((await negated('paid')).body).toMatchObject({ would_dispatch: true, condition: { held: true } });
  expect((await negated('void')).body.condition).toEqual({
    held: false,
    clause: 'condition.instance.status.$not',
    detail: 'instance.status matches {"$in":["void","refunded"]}, which $not refuses',
  });
  const bad = await request(t.app)
    .post(`/api/action-triggers/${id}/test`)
    .send({ signal: 'post_save', instance: {}, previous: [1] })
    .expect(400);
  expect(pathsOf(bad).map((e) => e.path)).toEqual(['previous']);
});

test('signals take previous (single and batch), refuse a non-object, and name previous when it makes a signal too large', async () => {
  const signal = { signal: 'post_save', app_label: 'shop', model_name: 'order', instance: { id: 1 } };
  await request(t.app)
    .post('/api/signals')
    .send({ ...signal, previous: { id: 1 } })
    .expect(202);
  await request(t.app)
    .post('/api/signals')
    .send([signal, { ...signal, previous: { id: 1 } }])
    .expect(202);
  const bad = await request(t.app)
    .post('/api/signals')
    .send([signal, { ...signal, previous: 'pending' }])
    .expect(400);
  expect(pathsOf(bad).map((e) => e.path)).toEqual(['[1].previous']);
  const huge = await request(t.app)
    .post('/api/signals')
    .send({ ...signal, previous: { blob: 'x'.repeat(300_000) } })
    .expect(400);
  expect(pathsOf(huge).map((e) => e.path)).toEqual(['previous']);
});
