import { createStreamBudget } from '../../src/audit/stream-budget';

/** Whether `p` has settled by the next turn of the event loop. */
const settled = async (p: Promise<void>) => {
  let done = false;
  void p.then(() => {
    done = true;
  });
  await new Promise((r) => setImmediate(r));
  return done;
};

test('room is given at once while a read fits; past the budget it waits until enough is released', async () => {
  const budget = createStreamBudget(100);
  expect(await settled(budget.room(40))).toBe(true);
  budget.hold(90);
  const waiting = budget.room(40);
  expect(await settled(waiting)).toBe(false);
  budget.release(20);
  expect(await settled(waiting)).toBe(false);
  budget.release(10);
  expect(await settled(waiting)).toBe(true);
  expect(budget.held()).toBe(60);
});

test('a release lets waiting streams read in arrival order, only as many as fit together, and a later one never jumps the queue', async () => {
  const budget = createStreamBudget(100);
  budget.hold(100);
  const [a, b, c] = [budget.room(40), budget.room(40), budget.room(40)];
  // Would fit alone, but others wait before it.
  const late = budget.room(1);
  budget.release(100);
  expect([await settled(a), await settled(b), await settled(c), await settled(late)]).toEqual([true, true, false, false]);
  // Those let through read (and hold), then give back: the rest follow.
  budget.hold(80);
  budget.release(80);
  expect([await settled(c), await settled(late)]).toEqual([true, true]);
});

test('with nothing held one read always goes, however large; streams let through that then read nothing do not block the rest', async () => {
  // The budget looks again after 10 ms: on a busy machine that could pass between two checks, so the clock is the test's.
  jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
  try {
    const budget = createStreamBudget(100);
    expect(await settled(budget.room(500))).toBe(true);
    budget.hold(100);
    const [a, b] = [budget.room(60), budget.room(60)];
    budget.release(100);
    expect([await settled(a), await settled(b)]).toEqual([true, false]);
    // `a` found nothing to read: it never holds or releases, yet `b` gets its turn.
    jest.advanceTimersByTime(50);
    expect(await settled(b)).toBe(true);
  } finally {
    jest.useRealTimers();
  }
});
