import { closeSync, openSync, readdirSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import Database from 'better-sqlite3';
import { READ_MODEL_WAIT_MS } from '../../../src/kernel/limits';
import { silentLogger } from '../../../src/kernel/logger';
import { openReadModel, ReadModelUnavailable } from '../../../src/projections/read-model';
import { startProjection } from '../../../src/projections/runner';
import { streamOf } from '../../../src/model/triggers/events';
import { acceptedEvent, signalStreamOf } from '../../../src/model/signals/signal-record';
import { aTrigger, BROKERS_CONFIG, startTestApp } from '../../support/test-app';

const FILE = 'read-model.sqlite';
/** Big enough that the file has many pages to damage. */
const bigTrigger = (i: number) => aTrigger({ payload: { i, filler: 'x'.repeat(20_000) } });

const seed = async (n = 12) => {
  const t = await startTestApp(BROKERS_CONFIG);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await request(t.app).post('/api/action-triggers').send(bigTrigger(i)).expect(201)).body.id);
  return { t, ids };
};

const overwrite = (file: string, offset: number, length: number) => {
  const fd = openSync(file, 'r+');
  writeSync(fd, Buffer.alloc(length, 0xa5), 0, length, offset);
  closeSync(fd);
};

const asideFiles = (dir: string) => readdirSync(dir).filter((f) => f.startsWith(`${FILE}.corrupt-`) && !/-(wal|shm)$/.test(f));

test.each([
  ['its header overwritten', (file: string) => overwrite(file, 0, 100)],
  ['pages in the middle overwritten', (file: string) => overwrite(file, statSync(file).size / 2, 16_384)],
])('a read model file with %s is moved aside at start and rebuilt from the events', async (_name, damage) => {
  const { t, ids } = await seed();
  const before = (await request(t.app).get('/api/action-triggers?limit=1000').expect(200)).text;
  await t.close(false);
  damage(join(t.dir, FILE));
  const again = await startTestApp(BROKERS_CONFIG, t.dir);
  expect((await request(again.app).get('/readyz').expect(200)).body.status).toBe('ready');
  expect((await request(again.app).get('/api/action-triggers?limit=1000').expect(200)).text).toBe(before);
  expect(again.readModel.matching('post_save', 'shop', 'order').map((v) => v.id)).toEqual(ids);
  expect(asideFiles(t.dir)).toHaveLength(1);
  await again.close();
});

test('a read model damaged at run time answers 503 (not 500), says not ready, and rebuilds itself (its signal index too)', async () => {
  const { t, ids } = await seed();
  for (const id of ['idx-1', 'idx-2']) {
    const signal = {
      id,
      signal: 'post_save' as const,
      app_label: 'nobody',
      model_name: 'watches',
      instance: {},
      occurred_at: new Date().toISOString(),
    };
    await t.store.append(
      signalStreamOf(id),
      [acceptedEvent({ signal, plan: { triggers: [], actions: [] }, not_matched: [], not_matched_truncated: false }, new Date())],
      'no_stream',
    );
  }
  const indexed = async () => {
    for (const deadline = Date.now() + 15_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
      try {
        if (t.readModel.signalPage({}, 10).length === 2) break;
      } catch {
        /* rebuilding */
      }
    }
    return t.readModel.signalPage({}, 10).map((s) => s.id);
  };
  expect(await indexed()).toEqual(['idx-2', 'idx-1']);
  const file = join(t.dir, FILE);
  // Damage every page but the header behind the running process's back, then make its next
  // read transaction drop its page cache (another connection commits).
  const other = new Database(file);
  other.pragma('wal_checkpoint(TRUNCATE)');
  overwrite(file, 4096, statSync(file).size - 4096);
  try {
    other.exec('CREATE TABLE IF NOT EXISTS poke (x)');
  } catch {
    /* it may already see the damage */
  }
  other.close();
  const get = await request(t.app).get(`/api/action-triggers/${ids[0]}`);
  expect(get.status).toBe(503);
  expect(get.headers['content-type']).toMatch(/problem\+json/);
  expect(get.body.detail).toMatch(/read model is unavailable/);
  expect(get.headers['retry-after']).toBe('5');
  // Within a few seconds the runner has moved the file aside and rebuilt it from the events.
  const deadline = Date.now() + 15_000;
  let ready = await request(t.app).get('/readyz');
  while (ready.status !== 200 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    ready = await request(t.app).get('/readyz');
  }
  expect(ready.status).toBe(200);
  expect(asideFiles(t.dir)).toHaveLength(1);
  expect((await request(t.app).get(`/api/action-triggers/${ids[0]}`).expect(200)).body.id).toBe(ids[0]);
  // The signal projection shares the file: it noticed and followed again from the start.
  expect(await indexed()).toEqual(['idx-2', 'idx-1']);
  await t.close();
});

test('a write answers within its bound with the stored trigger when the read model cannot follow', async () => {
  const t = await startTestApp(BROKERS_CONFIG);
  await t.projection.stop(); // the read model no longer follows the store
  const started = Date.now();
  const res = await request(t.app).post('/api/action-triggers').send(aTrigger()).expect(201);
  expect(Date.now() - started).toBeLessThan(READ_MODEL_WAIT_MS + 2000);
  const events = await t.store.read(streamOf(res.body.id));
  expect(events).toHaveLength(1);
  expect(res.headers.etag).toBe('"1"');
  expect(res.headers.location).toMatch(new RegExp(`/api/action-triggers/${res.body.id}$`));
  expect(res.body).toMatchObject({
    ...aTrigger(),
    version: 1,
    created_at: events[0]!.metadata.occurred_at,
    updated_at: events[0]!.metadata.occurred_at,
  });
  const patched = await request(t.app)
    .patch(`/api/action-triggers/${res.body.id}`)
    .set('If-Match', '"1"')
    .send({ active: false })
    .expect(200);
  expect(patched.body).toMatchObject({ active: false, version: 2, created_at: res.body.created_at });
  expect(patched.body.updated_at >= res.body.updated_at).toBe(true);
  await t.close();
}, 30_000);

test('two processes on one damaged file: one moves it aside, the other follows to the new file', async () => {
  const { t, ids } = await seed(4);
  const file = join(t.dir, FILE);
  const other = openReadModel(file);
  const otherRunner = await startProjection(t.store, other, silentLogger);
  await otherRunner.ready;
  const spare = new Database(file);
  spare.pragma('wal_checkpoint(TRUNCATE)');
  overwrite(file, 4096, statSync(file).size - 4096);
  try {
    spare.exec('CREATE TABLE IF NOT EXISTS poke (x)');
  } catch {
    /* it may already see the damage */
  }
  spare.close();
  // Both find the damage; each will try to move the file aside, but only the first may.
  await request(t.app).get(`/api/action-triggers/${ids[0]}`).expect(503);
  expect(() => other.get(ids[0]!)).toThrow(ReadModelUnavailable);
  const deadline = Date.now() + 15_000;
  const healthy = () => otherRunner.failure() === undefined && t.projection.failure() === undefined;
  // While rebuilding, reads answer ReadModelUnavailable: not there yet.
  const found = (m: typeof other, id: string) => {
    try {
      return m.get(id);
    } catch (e) {
      if (e instanceof ReadModelUnavailable) return undefined;
      throw e;
    }
  };
  while (!(healthy() && found(other, ids[3]!) && found(t.readModel, ids[3]!)) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(other.get(ids[3]!)?.id).toBe(ids[3]);
  expect(t.readModel.get(ids[3]!)?.id).toBe(ids[3]);
  expect(asideFiles(t.dir)).toHaveLength(1);
  await otherRunner.stop();
  other.close();
  await t.close();
}, 30_000);

/** `/readyz` once `done` holds of its body, or at the deadline. */
const readyzUntil = async (
  app: Parameters<typeof request>[0],
  done: (body: { signal_index: { caught_up?: boolean; failure?: string } }) => boolean,
) => {
  const deadline = Date.now() + 10_000;
  let body = (await request(app).get('/readyz').expect(200)).body;
  while (!done(body) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    body = (await request(app).get('/readyz').expect(200)).body;
  }
  return body;
};
const unwatchedSignal = (id: string) => ({ id, signal: 'post_save', app_label: 'shop', model_name: 'nobody', instance: { id: 1 } });

test('an acceptance the signal index cannot read is passed over: /readyz stays ready, the index caught up past it', async () => {
  const t = await startTestApp(BROKERS_CONFIG);
  try {
    // An acceptance without its signal (a newer build's, or damaged).
    await t.store.append(signalStreamOf('broken'), [{ type: 'SignalAccepted', data: {}, metadata: {} }], 'no_stream');
    await request(t.app).post('/api/signals').send(unwatchedSignal('after-broken')).expect(202);
    const body = await readyzUntil(t.app, (b) => b.signal_index.caught_up === true);
    expect(body.status).toBe('ready');
    expect(body.signal_index).toEqual({ caught_up: true });
  } finally {
    await t.close();
  }
});

test('a signal event the signal index cannot apply (its table gone from the file) shows in /readyz, which stays ready (intake does not need the index)', async () => {
  const t = await startTestApp(BROKERS_CONFIG);
  try {
    const ready = await request(t.app).get('/readyz').expect(200);
    expect(ready.body.signal_index).toEqual({ caught_up: true });
    const db = new Database(join(t.dir, FILE));
    db.exec('DROP TABLE signals');
    db.close();
    await request(t.app).post('/api/signals').send(unwatchedSignal('not-indexed')).expect(202);
    const body = await readyzUntil(t.app, (b) => !!b.signal_index.failure);
    expect(body.status).toBe('ready');
    expect(body.signal_index).toMatchObject({ caught_up: false, failure: expect.stringMatching(/\w/) });
    await request(t.app).post('/api/action-triggers').send(aTrigger()).expect(201);
  } finally {
    await t.close();
  }
});
