import request from 'supertest';
import { startDispatchHarness } from '../../support/dispatch-harness';
import { startReceiver, Receiver } from '../../support/receiver';
import { waitForDispatch } from '../../support/signals';
import { postTrigger, triggerBody } from '../../support/trigger-body';

/** 0.5 s doubling to 2 s, 4 attempts: the bounds a receiver's Retry-After is held within. */
const RETRY = { initial_interval_secs: 0.5, backoff_coefficient: 2, max_interval_secs: 2, max_attempts: 4 };

let h: Awaited<ReturnType<typeof startDispatchHarness>>;
let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
  h = await startDispatchHarness({ retry: RETRY });
});
afterAll(async () => {
  await h?.close();
  await rx?.close();
});

/** A trigger of its own model with one webhook to `path`; emits one signal for it. */
const dispatchTo = async (path: string) => {
  const model = `retry-after-${path.slice(1)}`;
  await postTrigger(h.app, triggerBody({ model, webhooks: [{ url: rx.url(path), http_method: 'POST' }] }));
  return (
    (
      await request(h.app)
        .post('/api/signals')
        .send({ signal: 'post_save', app_label: 'shop', model_name: model, instance: { id: 1 } })
        .expect(202)
    ).body as { id: string }
  ).id;
};

const gaps = (path: string) =>
  rx
    .on(path)
    .slice(1)
    .map((r, i) => r.at - rx.on(path)[i]!.at);

test('a receiver that always answers 503 with Retry-After now (0, a past date) or unreadable (-5) gets every attempt, backed off as without it', async () => {
  const answers: Record<string, string> = { '/zero': '0', '/past': 'Thu, 01 Jan 1970 00:00:00 GMT', '/negative': '-5' };
  for (const [path, value] of Object.entries(answers))
    rx.script(path, Array(RETRY.max_attempts).fill({ status: 503, headers: { 'Retry-After': value } }));
  const ids = await Promise.all(Object.keys(answers).map(dispatchTo));
  const done = await Promise.all(ids.map((id) => waitForDispatch(h.app, id)));
  for (const [i, path] of Object.keys(answers).entries()) {
    expect({ path, action: done[i].actions[0] }).toEqual({
      path,
      action: expect.objectContaining({ state: 'failed', attempts: RETRY.max_attempts, status_code: 503 }),
    });
    expect(rx.on(path)).toHaveLength(RETRY.max_attempts);
  }
  // Now, a past date and -5 all leave the backoff: equal jitter, at least half a step (0.25 s, then 0.5 s, 1 s).
  for (const path of Object.keys(answers)) {
    gaps(path).forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(Math.min(2000, 500 * 2 ** i) / 2 - 50));
  }
});

test('a Retry-After years out (99999999 s, a date in 9999) waits max_interval_secs: the next attempt comes within seconds', async () => {
  const answers: Record<string, string> = { '/forever': '99999999', '/year-9999': 'Fri, 31 Dec 9999 23:59:59 GMT' };
  for (const [path, value] of Object.entries(answers)) rx.script(path, [{ status: 503, headers: { 'Retry-After': value } }]);
  const ids = await Promise.all(Object.keys(answers).map(dispatchTo));
  // max_interval_secs (2 s) plus slack for a busy machine; uncapped, the second attempt would be years away.
  await rx.waitFor(() => Object.keys(answers).every((path) => rx.on(path).length === 2), 2000 + 8000);
  for (const path of Object.keys(answers)) expect(gaps(path)[0]).toBeGreaterThanOrEqual(1900);
  const done = await Promise.all(ids.map((id) => waitForDispatch(h.app, id)));
  expect(done.map((d) => d.actions[0])).toEqual(
    Array(2).fill(expect.objectContaining({ state: 'delivered', attempts: 2, status_code: 200 })),
  );
});
