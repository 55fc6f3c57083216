import request from 'supertest';
import { aTrigger, startTestApp } from '../../support/test-app';

/** GET /api/action-triggers/<id>?as_of=: the trigger as GET showed it then, folded from its events. */
type App = Awaited<ReturnType<typeof startTestApp>>;
type Event = { version: number; metadata: { occurred_at: string } };
const trigger = aTrigger({ msg_broker_queues: [] });
const pause = () => new Promise((r) => setTimeout(r, 30));
const shift = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

let t: App;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const asOf = (id: string, at: string) => request(t.app).get(`/api/action-triggers/${id}`).query({ as_of: at });

test('as_of answers before creation, at and between updates (what GET showed then), and after deletion', async () => {
  const created = await request(t.app).post('/api/action-triggers').send(trigger).expect(201);
  const id = (created.body as { id: string }).id;
  await pause();
  const updated = await request(t.app)
    .patch(`/api/action-triggers/${id}`)
    .send({ payload: { step: 2 } })
    .expect(200);
  await pause();
  const deactivated = await request(t.app).patch(`/api/action-triggers/${id}`).send({ active: false }).expect(200);
  await pause();
  const lastLive = await request(t.app).get(`/api/action-triggers/${id}`).expect(200);
  await request(t.app).delete(`/api/action-triggers/${id}`).expect(204);
  const times = ((await request(t.app).get(`/api/action-triggers/${id}/history`).expect(200)).body as Event[]).map(
    (e) => e.metadata.occurred_at,
  );
  expect(times).toHaveLength(4);

  await asOf(id, shift(times[0]!, -1)).expect(404);
  // Inclusive: an event recorded at exactly as_of counts.
  const atCreation = await asOf(id, times[0]!).expect(200);
  expect(atCreation.text).toBe(created.text);
  expect(atCreation.headers.etag).toBe('"1"');
  const between = await asOf(id, shift(times[1]!, 10)).expect(200);
  expect(between.text).toBe(updated.text);
  expect(between.headers.etag).toBe('"2"');
  expect((await asOf(id, shift(times[3]!, -1)).expect(200)).text).toBe(lastLive.text);
  expect(lastLive.text).toBe(deactivated.text);
  await asOf(id, times[3]!).expect(404);
  await asOf(id, shift(times[3]!, 60_000)).expect(404);
  // Offsets other than Z name the same instant.
  const offset = new Date(Date.parse(times[1]!) + 2 * 3600_000).toISOString().replace('Z', '+02:00');
  expect((await asOf(id, offset).expect(200)).headers.etag).toBe('"2"');
});

test.each(['yesterday', '2026-13-01T00:00:00Z', '2026-11-22 12:00:00', ''])('as_of=%p is 400 naming query.as_of', async (bad) => {
  const id = ((await request(t.app).post('/api/action-triggers').send(trigger).expect(201)).body as { id: string }).id;
  const res = await asOf(id, bad).expect(400);
  expect((res.body as { errors: Array<{ path: string }> }).errors.map((e) => e.path)).toEqual(['query.as_of']);
});

test('as_of given twice is 400; an unknown id is 404', async () => {
  const id = ((await request(t.app).post('/api/action-triggers').send(trigger).expect(201)).body as { id: string }).id;
  await request(t.app).get(`/api/action-triggers/${id}?as_of=2026-01-01T00:00:00Z&as_of=2026-01-02T00:00:00Z`).expect(400);
  await asOf('0190a5d8-0000-7000-8000-000000000000', new Date().toISOString()).expect(404);
});
