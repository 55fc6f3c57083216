import request from 'supertest';
import { Category, Checkpoint, EventStore } from '../../../src/event-store/port';
import { feedEvent, feedPage } from '../../../src/audit/feed';
import { MAX_LIST_PAGE_BYTES } from '../../../src/kernel/limits';
import { aTrigger, startTestApp } from '../../support/test-app';

/**
 * `GET /api/events` reads the store a chunk at a time while its page fills: a page of large
 * definitions (about 16 fit in 4 MiB) reads at most one chunk (32 events) more than it sends,
 * whatever `limit` says; the pages are the same as a read of everything cut by the byte bound.
 */
jest.setTimeout(120_000);

type Page = { events: Array<{ position: string; version: number }>; next: string | null };
type App = Awaited<ReturnType<typeof startTestApp>>;

const CHUNK = 32;
/** Trigger events readCategory returned since the last reset. */
let read = 0;
const counting = (store: EventStore): EventStore => ({
  ...store,
  readCategory: async (category: Category, after: Checkpoint, limit: number) => {
    const events = await store.readCategory(category, after, limit);
    if (category === 'action_trigger') read += events.length;
    return events;
  },
});

let t: App;
beforeAll(async () => {
  t = await startTestApp({}, undefined, undefined, {}, undefined, (store) => ({ store: counting(store) }));
});
afterAll(async () => {
  await t.close();
});

/** A trigger with `versions` versions: created, then PATCHed with a new payload each time. */
const triggerWith = async (versions: number, payload: (i: number) => unknown) => {
  const id = (
    (
      await request(t.app)
        .post('/api/action-triggers')
        .send(aTrigger({ msg_broker_queues: [], payload: payload(1) }))
        .expect(201)
    ).body as { id: string }
  ).id;
  for (let i = 2; i <= versions; i++)
    await request(t.app)
      .patch(`/api/action-triggers/${id}`)
      .send({ payload: payload(i) })
      .expect(200);
  return id;
};

/** Follows `Link: rel="next"` from `first`: each page, its Link, its size and the events read for it. */
const allPages = async (first: string) => {
  const pages: Array<{ body: Page; link: string | undefined; bytes: number; read: number }> = [];
  for (let path: string | undefined = first; path !== undefined;) {
    read = 0;
    const res = await request(t.app).get(path).expect(200);
    const link = res.headers.link as string | undefined;
    pages.push({ body: res.body as Page, link, bytes: Buffer.byteLength(res.text), read });
    path = /^<([^>]*)>; rel="next"$/.exec(link ?? '')?.[1];
  }
  return pages;
};

/** Every feed event after `after`, as JSON, read from the store at once (the reference). */
const storedAfter = async (after: Checkpoint) =>
  (await t.store.readCategory('action_trigger', after, 100_000)).map((e) => JSON.stringify(feedEvent(e)));

test('large definitions: each page reads at most one chunk more than it sends, stops at 4 MiB, and every event comes once', async () => {
  const start = await t.store.headPosition();
  const big = (i: number) => ({ text: `${i} ${'x'.repeat(250_000)}` });
  await triggerWith(60, big);
  const first = start === 'start' ? '' : `&after=${start.toString()}`;
  const pages = await allPages(`/api/events?limit=1000${first}`);
  const stored = await storedAfter(start);
  expect(pages.flatMap((p) => p.body.events).map((e) => JSON.stringify(e))).toEqual(stored);
  expect(pages.map((p) => p.body.events.length)).toEqual([16, 16, 16, 12]);
  expect(pages.map((p) => p.link !== undefined)).toEqual([true, true, true, false]);
  let offset = 0;
  for (const p of pages) {
    expect(p.read).toBeLessThanOrEqual(p.body.events.length + CHUNK);
    const n = p.body.events.length;
    // Cut by bytes, not by the limit: the items' array and the next event would pass 4 MiB.
    const arrayBytes = Buffer.byteLength(`[${stored.slice(offset, offset + n).join(',')}]`);
    expect(arrayBytes).toBeLessThanOrEqual(MAX_LIST_PAGE_BYTES);
    if (offset + n < stored.length) expect(arrayBytes + 1 + Buffer.byteLength(stored[offset + n]!)).toBeGreaterThan(MAX_LIST_PAGE_BYTES);
    expect(p.bytes).toBeLessThan(MAX_LIST_PAGE_BYTES + 64); // the envelope: {"events":…,"next":"<position>"}
    expect(p.body.next).toBe(p.body.events.at(-1)!.position);
    offset += n;
  }
});

test('a limit larger than a chunk: the page spans chunks, Link when full, none when the store ran out', async () => {
  const start = await t.store.headPosition();
  // Two triggers written in turns: their events interleave in the feed.
  const [a, b] = await Promise.all([triggerWith(40, (i) => ({ a: i })), triggerWith(40, (i) => ({ b: i }))]);
  const stored = await storedAfter(start);
  expect(stored).toHaveLength(80);
  const after = start === 'start' ? '' : `&after=${start.toString()}`;
  const pages = await allPages(`/api/events?limit=70${after}`);
  expect(pages.map((p) => p.body.events.length)).toEqual([70, 10]);
  expect(pages.flatMap((p) => p.body.events).map((e) => JSON.stringify(e))).toEqual(stored);
  expect(pages[0]!.link).toBe(`</api/events?after=${pages[0]!.body.next!}&limit=70>; rel="next"`);
  expect(pages[1]!.link).toBeUndefined();
  // Small events: nothing is read that the page does not send.
  expect(pages.map((p) => p.read)).toEqual([70, 10]);
  expect(new Set(pages.flatMap((p) => p.body.events).map((e) => (e as unknown as { trigger_id: string }).trigger_id))).toEqual(
    new Set([a, b]),
  );

  // Exactly full at the store's end (80 = 64 + 16): a Link, and the page it names is empty with the same next.
  read = 0;
  const full = await request(t.app).get(`/api/events?limit=80${after}`).expect(200);
  expect((full.body as Page).events).toHaveLength(80);
  expect(full.headers.link).toBeDefined();
  const last = (full.body as Page).next!;
  expect((await request(t.app).get(`/api/events?after=${last}&limit=80`).expect(200)).body).toEqual({ events: [], next: last });
});

test('a page holds at least one event, however small the byte bound, and is full when cut', async () => {
  const start = await t.store.headPosition();
  await triggerWith(3, (i) => ({ pad: `${i} ${'x'.repeat(1000)}` }));
  const stored = await storedAfter(start);
  const tiny = await feedPage(t.store, start, 100, 1);
  expect(tiny).toEqual({ items: [stored[0]], last: BigInt((JSON.parse(stored[0]!) as { position: string }).position), full: true });
  // Room for two events' array, not three.
  const two = Buffer.byteLength(`[${stored.slice(0, 2).join(',')}]`);
  expect((await feedPage(t.store, start, 100, two)).items).toEqual(stored.slice(0, 2));
  expect((await feedPage(t.store, start, 100, two - 1)).items).toEqual(stored.slice(0, 1));
  expect(await feedPage(t.store, start, 100)).toMatchObject({ items: stored, full: false });
  expect(await feedPage(t.store, start, 3)).toMatchObject({ items: stored, full: true });
});
