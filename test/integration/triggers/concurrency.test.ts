import request from 'supertest';
import { aTrigger, BROKERS_CONFIG, startTestApp } from '../../support/test-app';

test('twenty concurrent updates with the same If-Match: one wins, nineteen get 412, nothing is lost', async () => {
  const t = await startTestApp(BROKERS_CONFIG);
  try {
    const created = await request(t.app).post('/api/action-triggers').send(aTrigger()).expect(201);
    const id = created.body.id as string;
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        request(t.app)
          .patch(`/api/action-triggers/${id}`)
          .set('If-Match', '"1"')
          .send({ payload: { writer: i } }),
      ),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 412)).toHaveLength(19);
    const winner = responses.find((r) => r.status === 200)!.body.payload;
    const now = await request(t.app).get(`/api/action-triggers/${id}`).expect(200);
    expect(now.body.payload).toEqual(winner);
    expect(now.body.version).toBe(2);

    // Without If-Match every update lands: the losers of a race re-read and retry.
    const free = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        request(t.app)
          .patch(`/api/action-triggers/${id}`)
          .send({ payload: { writer: `free-${i}` } }),
      ),
    );
    expect(free.every((r) => r.status === 200)).toBe(true);
    const history = await request(t.app).get(`/api/action-triggers/${id}/history`).expect(200);
    expect(history.body).toHaveLength(22);
  } finally {
    await t.close();
  }
});
