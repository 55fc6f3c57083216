import request from 'supertest';
import { aTrigger, BROKERS_CONFIG, startTestApp } from '../../support/test-app';
import { historyPage } from '../../../src/triggers/history';
import { MAX_LIST_PAGE_BYTES } from '../../../src/kernel/limits';

/** `GET /api/action-triggers/<id>/history` answers a page: `after`, `limit`, at most 4 MiB, `Link` to the next. */
jest.setTimeout(120_000);

let t: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  t = await startTestApp(BROKERS_CONFIG);
});
afterAll(async () => {
  await t.close();
});

interface Entry {
  type: string;
  version: number;
  data: { definition?: Record<string, unknown> };
}

/** A trigger with `versions` versions: created, then PATCHed (each patch a new payload). */
const triggerWith = async (versions: number, payload: (i: number) => unknown = (i) => ({ n: i })) => {
  const id = (
    await request(t.app)
      .post('/api/action-triggers')
      .send(aTrigger({ payload: payload(1) }))
      .expect(201)
  ).body.id as string;
  for (let i = 2; i <= versions; i++)
    await request(t.app)
      .patch(`/api/action-triggers/${id}`)
      .send({ payload: payload(i) })
      .expect(200);
  return id;
};

/** The `after` and `limit` of a `Link: <…>; rel="next"` header. */
const nextOf = (link: string | undefined) => {
  const m = /^<([^>]*)>; rel="next"$/.exec(link ?? '');
  return m ? new URL(m[1]!, 'http://x') : undefined;
};

/** Follows the Link headers from `first`: each page's versions, and each page's Link. */
const allPages = async (first: string) => {
  const pages: Array<{ versions: number[]; link: string | undefined; bytes: number }> = [];
  for (let path: string | undefined = first; path !== undefined;) {
    const res = await request(t.app).get(path).expect(200);
    const link = res.headers.link as string | undefined;
    pages.push({ versions: (res.body as Entry[]).map((e) => e.version), link, bytes: Buffer.byteLength(res.text) });
    const next = nextOf(link);
    path = next && `${next.pathname}${next.search}`;
  }
  return pages;
};

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

test('250 versions by 100: three pages, versions 1..250 each once in order, Link on the first two only', async () => {
  const id = await triggerWith(250);
  const pages = await allPages(`/api/action-triggers/${id}/history?limit=100`);
  expect(pages.map((p) => p.versions)).toEqual([range(1, 100), range(101, 200), range(201, 250)]);
  expect(pages.map((p) => p.link)).toEqual([
    `</api/action-triggers/${id}/history?limit=100&after=100>; rel="next"`,
    `</api/action-triggers/${id}/history?limit=100&after=200>; rel="next"`,
    undefined,
  ]);
  // Without parameters: the first 100, oldest first, the same entries as before.
  const first = await request(t.app).get(`/api/action-triggers/${id}/history`).expect(200);
  expect((first.body as Entry[]).map((e) => e.version)).toEqual(range(1, 100));
  expect(first.body[0]).toMatchObject({
    type: 'TriggerCreated',
    version: 1,
    data: { definition: { payload: { n: 1 } } },
    metadata: { actor: 'anonymous' },
  });
  expect(first.headers.link).toBe(`</api/action-triggers/${id}/history?after=100>; rel="next"`);
  // A page that ends exactly at the last version has no Link.
  const last = await request(t.app).get(`/api/action-triggers/${id}/history?after=150&limit=100`).expect(200);
  expect((last.body as Entry[]).map((e) => e.version)).toEqual(range(151, 250));
  expect(last.headers.link).toBeUndefined();
});

test('large definitions: each page stops before 4 MiB, and every version comes exactly once', async () => {
  // Near the largest definition a trigger may have (256 KiB): about 16 fit in 4 MiB.
  const big = (i: number) => ({ text: `${i} ${'x'.repeat(250_000)}` });
  const id = await triggerWith(41, big);
  const pages = await allPages(`/api/action-triggers/${id}/history?limit=1000`);
  expect(pages.flatMap((p) => p.versions)).toEqual(range(1, 41));
  expect(pages.length).toBe(3);
  for (const p of pages) expect(p.bytes).toBeLessThanOrEqual(MAX_LIST_PAGE_BYTES);
  // Cut by bytes, not by the limit: one more event would have passed 4 MiB.
  expect(pages.map((p) => p.versions.length)).toEqual([16, 16, 9]);
  expect(pages.map((p) => p.link === undefined)).toEqual([false, false, true]);
});

test('a page holds at least one event, however small the byte bound', async () => {
  const id = await triggerWith(3);
  const pages = [];
  for (let after = 0, page; after !== undefined; after = page.nextAfter!) {
    page = await historyPage(t.store, id, after, 100, 1);
    pages.push(page.items.map((json) => (JSON.parse(json) as Entry).version));
    if (page.nextAfter === undefined) break;
  }
  expect(pages).toEqual([[1], [2], [3]]);
});

test('after the last version: 200 and an empty page (the trigger exists, nothing newer yet); an unknown trigger: 404', async () => {
  const id = await triggerWith(3);
  await request(t.app).delete(`/api/action-triggers/${id}`).expect(204);
  const end = await request(t.app).get(`/api/action-triggers/${id}/history?after=4`).expect(200);
  expect(end.body).toEqual([]);
  expect(end.headers.link).toBeUndefined();
  expect((await request(t.app).get(`/api/action-triggers/${id}/history?after=9007199254740991`).expect(200)).body).toEqual([]);
  expect((await request(t.app).get(`/api/action-triggers/${id}/history?after=3`).expect(200)).body.map((e: Entry) => e.type)).toEqual([
    'TriggerDeleted',
  ]);
  const unknown = '01900000-0000-7000-8000-00000000abcd';
  await request(t.app)
    .get(`/api/action-triggers/${unknown}/history`)
    .expect(404)
    .expect('content-type', /problem\+json/);
  await request(t.app).get(`/api/action-triggers/${unknown}/history?after=5`).expect(404);
  await request(t.app).get('/api/action-triggers/not-a-uuid/history?after=5').expect(404);
});

test.each([
  ['after=-1', 'query.after'],
  ['after=1.5', 'query.after'],
  ['after=1e30', 'query.after'],
  ['after=abc', 'query.after'],
  ['after=', 'query.after'],
  ['after=1&after=2', 'query.after'],
  ['after=99999999999999999999', 'query.after'],
  ['after=9007199254740992', 'query.after'],
  ['limit=0', 'query.limit'],
  ['limit=1001', 'query.limit'],
  ['limit=-5', 'query.limit'],
  ['limit=1e3', 'query.limit'],
  ['limit=10&limit=20', 'query.limit'],
  ['limit= 10', 'query.limit'],
  ['cursor=abc', 'query.cursor'],
])('?%s is a 400 naming %s', async (query, path) => {
  const id = await triggerWith(1);
  const res = await request(t.app)
    .get(`/api/action-triggers/${id}/history?${query}`)
    .expect(400)
    .expect('content-type', /problem\+json/);
  expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([path]);
});

test('both bad: both named', async () => {
  const id = await triggerWith(1);
  const res = await request(t.app).get(`/api/action-triggers/${id}/history?after=x&limit=0`).expect(400);
  expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(['query.after', 'query.limit']);
});
