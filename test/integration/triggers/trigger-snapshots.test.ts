import request from 'supertest';
import * as E from 'fp-ts/Either';
import { EventStore, ReadRange } from '../../../src/event-store/port';
import { handleCommand, loadTrigger } from '../../../src/model/triggers/handle-command';
import { occurredAt, streamOf } from '../../../src/model/triggers/events';
import { decide } from '../../../src/model/triggers/decide';
import { readStoredEvent } from '../../../src/model/triggers/stored-events';
import { SNAPSHOT_EVERY, snapshotStreamOf } from '../../../src/model/triggers/snapshots';
import { evolve, initialState, TriggerState } from '../../../src/model/triggers/trigger';
import { aTrigger, startTestApp } from '../../support/test-app';

/**
 * Trigger snapshots (src/model/triggers/snapshots.ts) on a real SQLite store through the API: a write
 * reads the newest snapshot and fewer than SNAPSHOT_EVERY events, whatever the trigger's length,
 * and every version loads exactly as folding all its events does.
 */
type App = Awaited<ReturnType<typeof startTestApp>>;
let t: App;
/** Events each read of a trigger stream returned, while counting. */
let readsOfTriggers: number[] = [];
const counting = (store: EventStore): EventStore => ({
  ...store,
  read: async (streamId: string, range?: ReadRange) => {
    const events = await store.read(streamId, range);
    if (streamId.startsWith('action_trigger-')) readsOfTriggers.push(events.length);
    return events;
  },
});
beforeAll(async () => {
  t = await startTestApp({}, undefined, undefined, {}, undefined, (store) => ({ store: counting(store) }));
});
afterAll(async () => {
  await t.close();
});

/** The reference: every event of the stream folded, as before snapshots. */
const foldAll = async (id: string, upTo = Infinity) => {
  const stored = (await t.store.read(streamOf(id))).slice(0, upTo);
  return {
    state: stored.reduce((s: TriggerState, e) => evolve(s, readStoredEvent(e)), initialState),
    version: stored.length,
    createdAt: stored[0] && occurredAt(stored[0].metadata),
    updatedAt: stored.at(-1) && occurredAt(stored.at(-1)!.metadata),
  };
};
const loaded = async (id: string, upTo?: number) => {
  const { state, version, createdAt, updatedAt } = await loadTrigger(t.store, streamOf(id), upTo);
  return { state, version, createdAt, updatedAt };
};
const create = async () =>
  (
    (
      await request(t.app)
        .post('/api/action-triggers')
        .send(aTrigger({ msg_broker_queues: [] }))
        .expect(201)
    ).body as { id: string }
  ).id;
const edit = (id: string, i: number) =>
  request(t.app)
    .patch(`/api/action-triggers/${id}`)
    .send(i % 3 === 0 ? { active: i % 2 === 0 } : { payload: { step: i } })
    .expect(200);

test('a trigger with 130 versions: 2 snapshots, every version loads as the full fold does, and a write reads < SNAPSHOT_EVERY events', async () => {
  const id = await create();
  for (let i = 2; i <= 130; i++) await edit(id, i);
  const snapshots = await t.store.read(snapshotStreamOf(streamOf(id)));
  expect(snapshots.map((s) => s.data.version)).toEqual([SNAPSHOT_EVERY, 2 * SNAPSHOT_EVERY]);
  for (let v = 1; v <= 130; v++) expect(await loaded(id, v)).toEqual(await foldAll(id, v));
  expect(await loaded(id)).toEqual(await foldAll(id));

  readsOfTriggers = [];
  const res = await edit(id, 131);
  expect(res.headers.etag).toBe('"131"');
  // Before snapshots this write read all 130 events.
  expect(readsOfTriggers).toEqual([130 - 2 * SNAPSHOT_EVERY]);
  const body = (await request(t.app).get(`/api/action-triggers/${id}`).expect(200)).body as {
    payload: unknown;
    created_at: string;
    updated_at: string;
  };
  const full = await foldAll(id);
  expect(body.payload).toMatchObject({ step: 131 });
  expect(full.state.status === 'live' && full.state.definition.payload).toEqual(body.payload);
  expect([body.created_at, body.updated_at]).toEqual([full.createdAt, full.updatedAt]);

  // as_of reads from a snapshot too: the version recorded then, as the full fold has it.
  const times = (await t.store.read(streamOf(id))).map((e) => Date.parse(occurredAt(e.metadata)));
  for (const v of [49, 50, 51, 101]) {
    const at = times[v - 1]!;
    const expected = times.findIndex((x) => x > at) === -1 ? times.length : times.findIndex((x) => x > at);
    const asOf = await request(t.app)
      .get(`/api/action-triggers/${id}`)
      .query({ as_of: new Date(at).toISOString() })
      .expect(200);
    expect(asOf.headers.etag).toBe(`"${expected}"`);
    const then = await foldAll(id, expected);
    expect(then.state.status === 'live' && then.state.definition.payload).toEqual((asOf.body as { payload: unknown }).payload);
  }
});

test('a deleted trigger and a reason set by the circuit breaker come back from a snapshot', async () => {
  const id = await create();
  for (let i = 2; i < SNAPSHOT_EVERY; i++) await edit(id, 3 * i + 1); // payload edits, active stays true
  const deactivated = await handleCommand(
    t.store,
    streamOf(id),
    (s) => decide({ type: 'DeactivateTrigger', data: { trigger_id: id, reason: 'webhook 0 failed 5 times' } }, s),
    { metadata: { actor: 'breaker', request_id: 'r', occurred_at: new Date().toISOString() } },
  );
  expect(E.isRight(deactivated) && deactivated.right.version).toBe(SNAPSHOT_EVERY);
  const atSnapshot = await loaded(id);
  expect(atSnapshot).toEqual(await foldAll(id));
  expect(atSnapshot.state).toMatchObject({ status: 'live', deactivatedReason: 'webhook 0 failed 5 times', definition: { active: false } });

  const gone = await create();
  for (let i = 2; i < SNAPSHOT_EVERY; i++) await edit(gone, 3 * i + 1);
  await request(t.app).delete(`/api/action-triggers/${gone}`).expect(204);
  expect((await t.store.read(snapshotStreamOf(streamOf(gone)))).map((s) => s.data.version)).toEqual([SNAPSHOT_EVERY]);
  expect((await loaded(gone)).state).toEqual({ status: 'deleted' });
  await request(t.app)
    .put(`/api/action-triggers/${gone}`)
    .send(aTrigger({ msg_broker_queues: [] }))
    .expect((r) => expect([404, 410]).toContain(r.status));
});

test('a snapshot this build cannot use is passed over: the events are read instead', async () => {
  const id = await create();
  for (let i = 2; i <= SNAPSHOT_EVERY + 3; i++) await edit(id, i);
  const stream = snapshotStreamOf(streamOf(id));
  await t.store.append(
    stream,
    [
      {
        type: 'TriggerSnapshot',
        data: {
          format: 1,
          version: 2 * SNAPSHOT_EVERY,
          created_at: 'x',
          updated_at: 'y',
          events: [{ type: 'TriggerCreated', data: { schema_version: 99 } }],
        },
        metadata: {},
      },
    ],
    0n,
  );
  // The damaged one is at version 100; a load of 53 uses the good one at 50; past 100 the damaged one would be newest.
  for (let i = SNAPSHOT_EVERY + 4; i <= 2 * SNAPSHOT_EVERY + 2; i++) await edit(id, i);
  expect(await loaded(id)).toEqual(await foldAll(id));
  expect(await loaded(id, 2 * SNAPSHOT_EVERY + 1)).toEqual(await foldAll(id, 2 * SNAPSHOT_EVERY + 1));
  expect(await loaded(id, SNAPSHOT_EVERY + 3)).toEqual(await foldAll(id, SNAPSHOT_EVERY + 3));
});

test('writers racing across a snapshot boundary leave one consistent snapshot', async () => {
  const id = await create();
  for (let i = 2; i <= SNAPSHOT_EVERY - 5; i++) await edit(id, i);
  await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      request(t.app)
        .patch(`/api/action-triggers/${id}`)
        .send({ payload: { racer: i } })
        .expect(200),
    ),
  );
  const snapshots = await t.store.read(snapshotStreamOf(streamOf(id)));
  expect(snapshots.map((s) => s.data.version)).toEqual([SNAPSHOT_EVERY]);
  expect(await loaded(id, SNAPSHOT_EVERY)).toEqual(await foldAll(id, SNAPSHOT_EVERY));
  expect(await loaded(id)).toEqual(await foldAll(id));
});
