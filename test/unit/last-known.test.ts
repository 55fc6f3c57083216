import { lastKnown } from '../../src/observability/last-known';

const OPTIONS = { freshMs: 1000, waitMs: 100, timeoutMs: 400, failed: (reason: string) => `failed: ${reason}` };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A check the test answers by hand. */
const manual = () => {
  const calls: Array<(value: string) => void> = [];
  return {
    calls,
    learn: () =>
      new Promise<string>((resolve) => {
        calls.push(resolve);
      }),
  };
};

test('a fresh answer within waitMs is returned at once; a fresh value is not asked again', async () => {
  let n = 0;
  const read = lastKnown(async () => `v${++n}`, OPTIONS);
  expect(await read()).toEqual({ value: 'v1', ageMs: expect.any(Number) });
  expect(await read()).toMatchObject({ value: 'v1' });
  expect(n).toBe(1);
});

test('a check that hangs: the read answers after waitMs with nothing known, then with the failure once timeoutMs passed', async () => {
  const check = manual();
  const read = lastKnown(check.learn, OPTIONS);
  const started = Date.now();
  expect(await read()).toBeUndefined();
  expect(Date.now() - started).toBeLessThan(300);
  await sleep(OPTIONS.timeoutMs);
  expect(await read()).toMatchObject({ value: 'failed: no answer within 400 ms' });
  expect(check.calls).toHaveLength(1);
});

test('a stale value is answered with its age while its refresh is slow; one refresh at a time; a late answer of an abandoned one does not replace a newer value', async () => {
  const check = manual();
  const read = lastKnown(check.learn, { ...OPTIONS, freshMs: 0 });
  const first = read();
  check.calls[0]!('up');
  expect(await first).toMatchObject({ value: 'up' });
  const slow = await read(); // refresh 2 hangs
  expect(slow).toMatchObject({ value: 'up' });
  expect(slow!.ageMs).toBeGreaterThanOrEqual(OPTIONS.waitMs - 5);
  await read(); // still refresh 2: none started beside it
  expect(check.calls).toHaveLength(2);
  await sleep(OPTIONS.timeoutMs); // refresh 2 times out
  const third = read();
  check.calls[2]!('down');
  expect(await third).toMatchObject({ value: 'down' });
  check.calls[1]!('stale answer');
  await sleep(10);
  expect((await read())?.value).toBe('down');
});

test('a check that throws stands as the failure with its reason', async () => {
  const read = lastKnown(async () => {
    throw new Error('store closed');
  }, OPTIONS);
  expect(await read()).toMatchObject({ value: 'failed: Error: store closed' });
});
