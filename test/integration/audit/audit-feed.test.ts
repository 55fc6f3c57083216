import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { feedEvent } from '../../../src/audit/feed';
import { startTestApp, aTrigger, tempDir } from '../../support/test-app';

/**
 * The audit feed returns every trigger event in store order. "No gap": a client that pages
 * with `after` = the previous page's `next` gets exactly the trigger events the store holds,
 * each once, in order; positions are global (signals interleave), so they need not be consecutive.
 */
type Page = { events: Array<{ position: string; trigger_id: string; type: string; version: number }>; next: string | null };
type App = Awaited<ReturnType<typeof startTestApp>>;

const trigger = aTrigger({ msg_broker_queues: [] });
/** Events of the other categories, written between trigger events: they take positions, never feed places. */
const otherEvents = async (t: App, n: number) => {
  for (const category of ['signal', 'delivered', 'breaker']) {
    await t.store.append(`${category}-${randomUUID()}`, [{ type: 'Other', data: { n }, metadata: {} }], 'no_stream');
  }
};

/** Creates, updates, deactivates and deletes triggers, with signals stored between the writes. */
const scriptedRun = async (t: App, n: number) => {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const created = await request(t.app).post('/api/action-triggers').send(trigger).expect(201);
    ids.push((created.body as { id: string }).id);
    await otherEvents(t, i);
  }
  for (const id of ids) {
    await request(t.app)
      .patch(`/api/action-triggers/${id}`)
      .send({ payload: { changed: true } })
      .expect(200);
    await otherEvents(t, 100);
    await request(t.app).patch(`/api/action-triggers/${id}`).send({ active: false }).expect(200);
  }
  await request(t.app).delete(`/api/action-triggers/${ids[0]!}`).expect(204);
  return ids;
};

/** Pages through the feed from `after` with `limit`; returns the events and the last `next`. */
const readFeed = async (t: App, after: string | null, limit: number) => {
  const events: Page['events'] = [];
  let next = after;
  for (;;) {
    const page = (
      await request(t.app)
        .get('/api/events')
        .query({ limit, ...(next === null ? {} : { after: next }) })
        .expect(200)
    ).body as Page;
    events.push(...page.events);
    if (page.events.length === 0) {
      expect(page.next).toBe(next);
      return { events, next };
    }
    expect(page.next).toBe(page.events[page.events.length - 1]!.position);
    next = page.next;
  }
};

const fromStore = async (t: App) =>
  (await t.store.readCategory('action_trigger', 'start', 100_000)).map((e) => JSON.parse(JSON.stringify(feedEvent(e))) as unknown);

test('the feed in small pages is exactly the stored trigger events in order, across a restart on the same data dir', async () => {
  const dir = tempDir();
  let t = await startTestApp({}, dir);
  try {
    await scriptedRun(t, 3);
    const first = await readFeed(t, null, 2);
    expect(first.events).toEqual(await fromStore(t));
    expect(first.events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['TriggerCreated', 'TriggerUpdated', 'TriggerDeactivated', 'TriggerDeleted']),
    );
    expect(first.events).toHaveLength(3 * 3 + 1);
    // Signals took positions between them: the feed's positions are increasing, not consecutive.
    const positions = first.events.map((e) => BigInt(e.position));
    expect(positions.every((p, i) => i === 0 || p > positions[i - 1]!)).toBe(true);
    expect(positions[positions.length - 1]! - positions[0]! + 1n).toBeGreaterThan(BigInt(positions.length));

    await t.close(false);
    t = await startTestApp({}, dir);
    await scriptedRun(t, 2);
    const second = await readFeed(t, first.next, 3);
    expect([...first.events, ...second.events]).toEqual(await fromStore(t));
    expect(second.events).toHaveLength(2 * 3 + 1);
    // From the start again after the restart: the same, whatever the page size.
    expect((await readFeed(t, null, 1000)).events).toEqual(await fromStore(t));
  } finally {
    await t.close();
  }
});

test('a feed event shows what history shows, plus trigger_id and position; no other category appears', async () => {
  const t = await startTestApp();
  try {
    const id = (
      (await request(t.app).post('/api/action-triggers').set('X-Request-Id', 'req-audit-1').send(trigger).expect(201)).body as {
        id: string;
      }
    ).id;
    await otherEvents(t, 1);
    const history = (await request(t.app).get(`/api/action-triggers/${id}/history`).expect(200)).body as object[];
    const page = (await request(t.app).get('/api/events').expect(200)).body as Page;
    expect(page.events).toEqual([{ ...history[0], trigger_id: id, position: page.events[0]!.position }]);
    expect(page.events[0]).toMatchObject({
      type: 'TriggerCreated',
      version: 1,
      metadata: { actor: 'anonymous', request_id: 'req-audit-1' },
    });
    expect(typeof page.events[0]!.position).toBe('string');
  } finally {
    await t.close();
  }
});

test('an empty store gives no events and next null; a full page links to the next one', async () => {
  const t = await startTestApp();
  try {
    expect((await request(t.app).get('/api/events').expect(200)).body).toEqual({ events: [], next: null });
    expect((await request(t.app).get('/api/events?after=42').expect(200)).body).toEqual({ events: [], next: '42' });
    // Past any position a store reaches: the same as the largest one.
    expect((await request(t.app).get('/api/events?after=99999999999999999999').expect(200)).body).toEqual({
      events: [],
      next: '9223372036854775807',
    });
    await request(t.app).post('/api/action-triggers').send(trigger).expect(201);
    await request(t.app).post('/api/action-triggers').send(trigger).expect(201);
    const full = await request(t.app).get('/api/events?limit=1').expect(200);
    expect(full.headers.link).toBe(`</api/events?after=${(full.body as Page).next!}&limit=1>; rel="next"`);
    expect((await request(t.app).get('/api/events?limit=5').expect(200)).headers.link).toBeUndefined();
  } finally {
    await t.close();
  }
});

test.each([
  ['limit=0', 'query.limit'],
  ['limit=1001', 'query.limit'],
  ['limit=abc', 'query.limit'],
  ['limit=1&limit=2', 'query.limit'],
  ['after=-1', 'query.after'],
  ['after=x', 'query.after'],
  ['after=01', 'query.after'],
  ['after=999999999999999999999', 'query.after'],
  ['from=3', 'query.from'],
])('GET /api/events?%s is 400 naming %s', async (query, path) => {
  const t = await startTestApp();
  try {
    const res = await request(t.app).get(`/api/events?${query}`).expect(400);
    expect((res.body as { errors: Array<{ path: string }> }).errors.map((e) => e.path)).toContain(path);
  } finally {
    await t.close();
  }
});

test('the feed needs the triggers:read scope', async () => {
  const t = await startTestApp({
    api_keys: [
      { id: 'writer', key: 'w-key', scopes: ['signals:write'] },
      { id: 'reader', key: 'r-key', scopes: ['triggers:read'] },
    ],
  });
  try {
    await request(t.app).get('/api/events').expect(401);
    await request(t.app).get('/api/events').set('Authorization', 'Bearer w-key').expect(403);
    await request(t.app).get('/api/events/stream').set('Authorization', 'Bearer w-key').expect(403);
    await request(t.app).get('/api/events').set('Authorization', 'Bearer r-key').expect(200);
  } finally {
    await t.close();
  }
});
