import request from 'supertest';
import type { Express } from 'express';

/** A dispatch that will not change any more: its workflow completed, or it matched nothing. */
export const isFinal = (s: { state: string }) => s.state === 'completed' || s.state === 'unmatched';

/** Polls `GET /api/signals/<id>` until the dispatch is final (or `until` holds). */
export const waitForDispatch = async (app: Express, id: string, until: (s: { state: string }) => boolean = isFinal, timeoutMs = 30_000) => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await request(app).get(`/api/signals/${id}`);
    if (res.status === 200 && until(res.body)) return res.body;
    if (Date.now() > deadline) throw new Error(`signal ${id} not done: ${res.status} ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};
