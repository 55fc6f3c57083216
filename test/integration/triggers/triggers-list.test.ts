import request from 'supertest';
import { aTrigger, BROKERS_CONFIG, startTestApp } from '../../support/test-app';

let t: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  t = await startTestApp(BROKERS_CONFIG);
  // 25 triggers: every 5th inactive, every 3rd on post_delete of Shop.Refund.
  for (let i = 0; i < 25; i++) {
    const over =
      i % 3 === 0 ? { config_signals: [{ signal: 'post_delete' }], content_types: [{ app_label: 'Shop', model_name: 'Refund' }] } : {};
    await request(t.app)
      .post('/api/action-triggers')
      .send(aTrigger({ ...over, active: i % 5 !== 0 }))
      .expect(201);
  }
});
afterAll(async () => {
  await t.close();
});

const nextLink = (link: string | undefined) => link && /<([^>]+)>; rel="next"/.exec(link)?.[1];

test('pages follow the Link header in creation order and cover every trigger once', async () => {
  const ids: string[] = [];
  let url: string | undefined = '/api/action-triggers?limit=10';
  let pages = 0;
  while (url) {
    const res = await request(t.app).get(url).expect(200);
    ids.push(...res.body.map((x: { id: string }) => x.id));
    url = nextLink(res.headers.link);
    pages++;
  }
  expect(pages).toBe(3);
  expect(ids).toHaveLength(25);
  expect(new Set(ids).size).toBe(25);
  expect([...ids].sort()).toEqual(ids);
});

test('filters combine and match content types case-insensitively; the Link keeps them', async () => {
  const refunds = await request(t.app).get('/api/action-triggers?signal=post_delete&app_label=shop&model_name=REFUND').expect(200);
  expect(refunds.body).toHaveLength(9);
  const activeRefunds = await request(t.app).get('/api/action-triggers?signal=post_delete&active=true&limit=3').expect(200);
  expect(activeRefunds.body.every((x: { active: boolean }) => x.active)).toBe(true);
  expect(nextLink(activeRefunds.headers.link)).toMatch(/signal=post_delete&active=true&limit=3&cursor=/);
  const inactive = await request(t.app).get('/api/action-triggers?active=false').expect(200);
  expect(inactive.body).toHaveLength(5);
  const none = await request(t.app).get('/api/action-triggers?model_name=nothing').expect(200);
  expect(none.body).toEqual([]);
  expect(none.headers.link).toBeUndefined();
});

test('q finds text in any content type or webhook URL, in any case, and pages like the rest', async () => {
  const ids: string[] = [];
  for (const [app, url] of [
    ['Billing', 'https://hooks.example.com/Invoices/a'],
    ['shipping', 'https://carrier.example.net/track'],
  ] as const) {
    const created = await request(t.app)
      .post('/api/action-triggers')
      .send(aTrigger({ content_types: [{ app_label: app, model_name: 'Parcel' }], webhooks: [{ url, http_method: 'POST' }] }))
      .expect(201);
    ids.push(created.body.id);
  }
  const q = async (text: string, more = '') =>
    (
      await request(t.app)
        .get(`/api/action-triggers?q=${encodeURIComponent(text)}${more}`)
        .expect(200)
    ).body.map((x: { id: string }) => x.id);
  expect(await q('INVOICES/')).toEqual([ids[0]]);
  expect(await q('billing.parcel')).toEqual([ids[0]]);
  expect(await q('.parcel')).toEqual(ids);
  expect(await q('.parcel', '&app_label=shipping')).toEqual([ids[1]]);
  expect(await q('carrier.example')).toEqual([ids[1]]);
  // Literal text: LIKE's wildcards and regex syntax match only themselves.
  expect(await q('%')).toEqual([]);
  expect(await q('_')).toEqual([]);
  expect(await q('.*')).toEqual([]);
  const paged = await request(t.app).get('/api/action-triggers?q=parcel&limit=1').expect(200);
  expect(nextLink(paged.headers.link)).toMatch(/q=parcel&limit=1&cursor=/);
  await request(t.app)
    .get(`/api/action-triggers?q=${'x'.repeat(201)}`)
    .expect(400);
  expect((await request(t.app).get('/api/action-triggers?q=').expect(400)).body.errors[0].path).toBe('query.q');
  // An update changes what is found; a deleted trigger is found no more.
  const before = await request(t.app).get(`/api/action-triggers/${ids[1]}`).expect(200);
  await request(t.app)
    .patch(`/api/action-triggers/${ids[1]}`)
    .set('If-Match', String(before.headers.etag))
    .send({ webhooks: [{ url: 'https://renamed.example.org/x', http_method: 'POST' }] })
    .expect(200);
  expect(await q('carrier.example')).toEqual([]);
  expect(await q('RENAMED.example')).toEqual([ids[1]]);
  for (const id of ids) await request(t.app).delete(`/api/action-triggers/${id}`).expect(204);
  expect(await q('.parcel')).toEqual([]);
});

test('bad query parameters are named', async () => {
  const res = await request(t.app).get('/api/action-triggers?active=yes&limit=5000&signal=saved&cursor=%%%&colour=red').expect(400);
  expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
    'query.active',
    'query.colour',
    'query.cursor',
    'query.limit',
    'query.signal',
  ]);
  await request(t.app).get('/api/action-triggers?limit=0').expect(400);
  await request(t.app).get('/api/action-triggers?limit=1&limit=2').expect(400);
});

test('a page stops before its byte budget (at least one item), and the Link goes on from there', async () => {
  const budget = 64 * 1024;
  const small = await startTestApp(BROKERS_CONFIG, undefined, undefined, { maxPageBytes: budget });
  const ids: string[] = [];
  for (let i = 0; i < 12; i++) {
    // Each about 20 KB: 3 fit a page; one of 100 KB is alone on its page.
    const size = i === 5 ? 100_000 : 20_000;
    ids.push(
      (
        await request(small.app)
          .post('/api/action-triggers')
          .send(aTrigger({ payload: { pad: 'x'.repeat(size) } }))
          .expect(201)
      ).body.id,
    );
  }
  const seen: string[] = [];
  const sizes: number[] = [];
  let url: string | undefined = '/api/action-triggers?limit=1000';
  while (url) {
    const res = await request(small.app).get(url).expect(200);
    expect(res.body.length).toBeGreaterThanOrEqual(1);
    if (res.body.length > 1) expect(Buffer.byteLength(res.text)).toBeLessThanOrEqual(budget);
    sizes.push(res.body.length);
    seen.push(...res.body.map((x: { id: string }) => x.id));
    url = nextLink(res.headers.link);
  }
  expect(seen).toEqual(ids);
  expect(sizes).toEqual([3, 2, 1, 3, 3]);
  await small.close();
});
