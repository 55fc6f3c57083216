import { join } from 'node:path';
import { rmSync } from 'node:fs';
import request from 'supertest';
import { openSqliteStore } from '../../../src/event-store/sqlite';
import { silentLogger } from '../../../src/kernel/logger';
import { openReadModel } from '../../../src/projections/read-model';
import { startProjection } from '../../../src/projections/runner';
import { aTrigger, BROKERS_CONFIG, startTestApp, tempDir } from '../../support/test-app';
import { until } from '../../support/until';

const seed = async () => {
  const t = await startTestApp(BROKERS_CONFIG);
  const ids: string[] = [];
  for (let i = 0; i < 6; i++) {
    const over =
      i < 3
        ? {}
        : {
            config_signals: [{ signal: 'pre_delete' }, { signal: 'post_save' }],
            content_types: [
              { app_label: 'SHOP', model_name: 'Order' },
              { app_label: 'crm', model_name: 'lead' },
            ],
          };
    ids.push((await request(t.app).post('/api/action-triggers').send(aTrigger(over)).expect(201)).body.id);
  }
  await request(t.app).patch(`/api/action-triggers/${ids[1]}`).send({ active: false }).expect(200);
  await request(t.app).delete(`/api/action-triggers/${ids[4]}`).expect(204);
  return { t, ids };
};

test('the matching index finds active triggers by signal and content type, case-insensitively', async () => {
  const { t, ids } = await seed();
  const match = (s: string, a: string, m: string) => t.readModel.matching(s, a, m).map((v) => v.id);
  expect(match('post_save', 'shop', 'order')).toEqual([ids[0], ids[2], ids[3], ids[5]]);
  expect(match('pre_delete', 'CRM', 'Lead')).toEqual([ids[3], ids[5]]);
  expect(match('post_delete', 'shop', 'order')).toEqual([]);
  expect(match('post_save', 'shop', 'refund')).toEqual([]);
  await t.close();
});

test('a read model deleted from disk is rebuilt from the events, identical', async () => {
  const { t, ids } = await seed();
  const before = ids.map((id) => t.readModel.getJson(id));
  await t.close(false);
  rmSync(join(t.dir, 'read-model.sqlite'));
  rmSync(join(t.dir, 'read-model.sqlite-wal'), { force: true });
  rmSync(join(t.dir, 'read-model.sqlite-shm'), { force: true });
  const again = await startTestApp(BROKERS_CONFIG, t.dir);
  expect(ids.map((id) => again.readModel.getJson(id))).toEqual(before);
  await again.close();
});

test('two runners on one read-model file apply every event once', async () => {
  const dir = tempDir();
  const store = openSqliteStore(join(dir, 'events.sqlite'));
  const modelA = openReadModel(join(dir, 'read-model.sqlite'));
  const modelB = openReadModel(join(dir, 'read-model.sqlite'));
  const [a, b] = [await startProjection(store, modelA, silentLogger), await startProjection(store, modelB, silentLogger)];
  const t = await startTestApp(BROKERS_CONFIG, dir);
  const ids: string[] = [];
  for (let i = 0; i < 20; i++) ids.push((await request(t.app).post('/api/action-triggers').send(aTrigger()).expect(201)).body.id);
  await request(t.app).patch(`/api/action-triggers/${ids[0]}`).send({ active: false }).expect(200);
  const head = await store.headPosition();
  await Promise.all([a.waitFor(head as bigint), b.waitFor(head as bigint)]);
  expect(modelA.get(ids[0]!)?.version).toBe(2);
  expect(modelA.list({}, 100, undefined).items).toHaveLength(20);
  await Promise.all([a.stop(), b.stop()]);
  modelA.close();
  modelB.close();
  await store.close();
  await t.close();
});

test('a runner whose events another process on the same file applied answers its writes without applying them itself', async () => {
  const dir = tempDir();
  // Two processes: each its own store connection and read-model connection on the same files.
  const [storeA, storeB] = [openSqliteStore(join(dir, 'events.sqlite')), openSqliteStore(join(dir, 'events.sqlite'))];
  const [modelA, modelB] = [openReadModel(join(dir, 'read-model.sqlite')), openReadModel(join(dir, 'read-model.sqlite'))];
  // B may not apply anything: it can only follow by seeing A's progress in the file.
  const appliedByB: unknown[] = [];
  const onlyWatching = {
    ...modelB,
    apply: (events: Parameters<typeof modelB.apply>[0]) => {
      appliedByB.push(...events);
      throw new Error('B must not apply');
    },
  };
  const a = await startProjection(storeA, modelA, silentLogger);
  const b = await startProjection(storeB, onlyWatching, silentLogger);
  const t = await startTestApp(BROKERS_CONFIG, dir);
  for (let i = 0; i < 5; i++) await request(t.app).post('/api/action-triggers').send(aTrigger()).expect(201);
  const head = (await storeA.headPosition()) as bigint;
  expect(await a.waitFor(head, 5000)).toBe(true);
  expect(await b.waitFor(head, 5000)).toBe(true);
  expect(await b.caughtUp()).toBe(true);
  expect(modelB.list({}, 100, undefined).items).toHaveLength(5);
  await Promise.all([a.stop(), b.stop()]);
  modelA.close();
  modelB.close();
  await Promise.all([storeA.close(), storeB.close()]);
  await t.close();
});

test('a runner that failed on a batch another process on the same file then applied goes on from there, no longer failing', async () => {
  const t = await startTestApp(BROKERS_CONFIG);
  // The app keeps its own read model; A and B share another, on the same events.
  const shared = join(t.dir, 'shared-read-model.sqlite');
  const [storeA, storeB] = [openSqliteStore(join(t.dir, 'events.sqlite')), openSqliteStore(join(t.dir, 'events.sqlite'))];
  const [modelA, modelB] = [openReadModel(shared), openReadModel(shared)];
  const failing = {
    ...modelB,
    apply: (): never => {
      throw new Error('B cannot apply');
    },
  };
  const b = await startProjection(storeB, failing, silentLogger);
  let a: Awaited<ReturnType<typeof startProjection>> | undefined;
  try {
    for (let i = 0; i < 3; i++) await request(t.app).post('/api/action-triggers').send(aTrigger()).expect(201);
    const head = (await storeB.headPosition()) as bigint;
    await until(() => b.failure() === 'B cannot apply');
    expect(await b.caughtUp()).toBe(false);

    a = await startProjection(storeA, modelA, silentLogger);
    expect(await a.waitFor(head, 5000)).toBe(true);
    expect(await b.waitFor(head, 5000)).toBe(true);
    expect(b.failure()).toBeUndefined();
    expect(await b.caughtUp()).toBe(true);
  } finally {
    await Promise.all([a?.stop(), b.stop()]);
    modelA.close();
    modelB.close();
    await Promise.all([storeA.close(), storeB.close()]);
    await t.close();
  }
});

test('content types whose parts hold dots are indexed by their two parts', async () => {
  const t = await startTestApp(BROKERS_CONFIG);
  const dotted = (
    await request(t.app)
      .post('/api/action-triggers')
      .send(aTrigger({ content_types: [{ app_label: 'My.App', model_name: 'order.line' }] }))
      .expect(201)
  ).body.id;
  const other = (
    await request(t.app)
      .post('/api/action-triggers')
      .send(aTrigger({ content_types: [{ app_label: 'my', model_name: 'app.order.line' }] }))
      .expect(201)
  ).body.id;
  const match = (a: string, m: string) => t.readModel.matching('post_save', a, m).map((v) => v.id);
  expect(match('my.app', 'Order.Line')).toEqual([dotted]);
  expect(match('my', 'app.order.line')).toEqual([other]);
  expect(match('my.app.order', 'line')).toEqual([]);
  const listed = await request(t.app).get('/api/action-triggers?app_label=MY.APP&model_name=order.line').expect(200);
  expect(listed.body.map((x: { id: string }) => x.id)).toEqual([dotted]);
  await t.close();
});
