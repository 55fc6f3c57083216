import { readAnswer } from '../../src/relay/answer.ts';
import { takeBatch } from '../../src/relay/batches.ts';
import { retryAfterMs } from '../../src/relay/retry-after.ts';
import { unsendableReason } from '../../src/relay/unsendable.ts';
import type { ClaimedRow } from '../../src/relay/claim.ts';

const URL = 'http://service';
const problem = (status: number, body: object, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/problem+json', ...headers } });

test("202 is accepted only when it is the service's answer: one entry per signal, by id", async () => {
  const ok = [
    { id: 'a', duplicate: false },
    { id: 'b', duplicate: true },
  ];
  expect(await readAnswer(new Response(JSON.stringify(ok), { status: 202 }), ['a', 'b'], URL)).toEqual({ kind: 'accepted' });
  for (const body of ['<html>login</html>', JSON.stringify(ok.slice(0, 1)), JSON.stringify([{ id: 'a' }, { id: 'b' }])])
    expect(await readAnswer(new Response(body, { status: 200 }), ['a', 'b'], URL)).toMatchObject({ kind: 'unavailable' });
});

test('a redirect is never followed: the rows wait, the reason names where it pointed', async () => {
  const res = new Response(null, { status: 307, headers: { location: 'http://elsewhere/api/signals' } });
  expect(await readAnswer(res, ['a'], URL)).toEqual({
    kind: 'unavailable',
    reason:
      'http://service answered 307, a redirect to http://elsewhere/api/signals; redirects are never followed (the API key would go along): set url to the final address',
  });
});

test('429 and 5xx wait, with Retry-After; 401/403/404 name the setting; a refusal that is not problem+json waits', async () => {
  expect(await readAnswer(problem(503, { title: 'Service Unavailable' }, { 'retry-after': '7' }), ['a'], URL)).toEqual({
    kind: 'unavailable',
    reason: '503 Service Unavailable',
    retryAfterMs: 7000,
  });
  expect(await readAnswer(problem(429, {}), ['a'], URL)).toMatchObject({ kind: 'unavailable' });
  expect(await readAnswer(problem(401, { title: 'Unauthorized' }), ['a'], URL)).toMatchObject({ reason: expect.stringMatching(/apiKey/) });
  expect(await readAnswer(problem(403, { title: 'Forbidden' }), ['a'], URL)).toMatchObject({
    reason: expect.stringMatching(/signals:write/),
  });
  expect(await readAnswer(problem(404, {}), ['a'], URL)).toMatchObject({ reason: expect.stringMatching(/check url/) });
  expect(await readAnswer(new Response('bad gateway', { status: 400 }), ['a'], URL)).toMatchObject({ kind: 'unavailable' });
});

test('a refusal names the rows at fault by index; one naming none has no items', async () => {
  const body = {
    title: 'Bad Request',
    errors: [
      { path: '[1].instance.a', message: 'nests too deep' },
      { path: '[1].signal', message: 'must be post_save' },
      { path: '[9]', message: 'out of the batch' },
    ],
  };
  const answer = await readAnswer(problem(400, body), ['a', 'b'], URL);
  expect(answer).toMatchObject({ kind: 'refused', status: 400 });
  expect(answer.kind === 'refused' && [...answer.items]).toEqual([
    [1, '400 Bad Request: instance.a: nests too deep; signal: must be post_save'],
  ]);
  const none = await readAnswer(problem(413, { title: 'Payload Too Large' }), ['a', 'b'], URL);
  expect(none.kind === 'refused' && none.items.size).toBe(0);
});

test('Retry-After: seconds or an HTTP date; anything else is ignored', () => {
  expect(retryAfterMs('5')).toBe(5000);
  expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
  expect(retryAfterMs(new Date(1_000).toUTCString(), 4_000)).toBe(0);
  for (const bad of [null, '-1', '1.5', 'soon-ish 2'] as const) expect(retryAfterMs(bad)).toBeUndefined();
});

test('batches are cut by count and bytes; a row sent alone goes alone', () => {
  const row = (seq: number, bytes = 10): ClaimedRow => ({ seq: String(seq), signalId: `s${seq}`, json: 'x'.repeat(bytes), bytes });
  const queue = [row(1), row(2), row(3), row(4, 100), row(5)];
  expect(takeBatch(queue, 2, 1000, new Set()).map((r) => r.seq)).toEqual(['1', '2']);
  expect(takeBatch(queue, 5, 50, new Set()).map((r) => r.seq)).toEqual(['3']);
  expect(takeBatch(queue, 5, 50, new Set()).map((r) => r.seq)).toEqual(['4']);
  const alone = [row(6), row(7), row(8)];
  expect(takeBatch(alone, 5, 1000, new Set(['7'])).map((r) => r.seq)).toEqual(['6']);
  expect(takeBatch(alone, 5, 1000, new Set(['7'])).map((r) => r.seq)).toEqual(['7']);
});

test('a row that can never be sent is named: no id, over the size limit, a number beyond a double', () => {
  const claimed = (json: string, signalId: string | null = 'sig-1'): ClaimedRow => ({
    seq: '1',
    signalId,
    json,
    bytes: Buffer.byteLength(json),
  });
  expect(unsendableReason(claimed('{"id":"sig-1","instance":{"n":1e300}}'))).toBeUndefined();
  expect(unsendableReason(claimed('{"instance":{}}', null))).toBe("the row's signal has no id (written other than with emit?)");
  expect(unsendableReason(claimed(`{"id":"sig-1","x":"${'y'.repeat(300_000)}"}`))).toMatch(
    /^the row's signal is 30\d{4} bytes as JSON; the service takes at most 262144 in one signal$/,
  );
  // As PostgreSQL writes jsonb's 1e400 out: every digit.
  const huge = `1${'0'.repeat(400)}`;
  expect(unsendableReason(claimed(`{"id":"sig-1","instance":{"tags":[1,${huge}]}}`))).toBe(
    "the row's signal cannot be sent: signal.instance.tags[1] is a number beyond what JSON parsers read (±1.8e308)",
  );
  expect(unsendableReason(claimed(`{"id":"sig-1","instance":{"code":"${'9'.repeat(400)}"}}`))).toBeUndefined();
});
