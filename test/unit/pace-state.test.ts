import {
  ask,
  backlogOf,
  EMPTY,
  FoundWaiter,
  grant,
  holds,
  sendSlot,
  PaceState,
  pause,
  release,
  reserve,
  slotAt,
} from '../../src/pacing/pace-state';

const RATE = { maxPerSecond: 10, burst: 1 };

/** Reserves `n` slots at `now`, one after another; their real times. */
const reserveMany = (s: PaceState, now: number, n: number, limit: { maxPerSecond: number; burst: number } = RATE) => {
  const at: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = reserve(s, now, limit, false);
    s = r.state;
    at.push(slotAt(s, r.slot));
  }
  return { state: s, at };
};

describe('the rate: reservations under max_per_second', () => {
  test('slots are 1000 / max_per_second ms apart from now, in the order they were reserved', () => {
    expect(reserveMany(EMPTY, 1000, 4).at).toEqual([1000, 1100, 1200, 1300]);
  });

  test('a burst of 3 lets three go at once after a quiet spell, then one every interval', () => {
    expect(reserveMany(EMPTY, 1000, 5, { maxPerSecond: 10, burst: 3 }).at).toEqual([1000, 1000, 1000, 1100, 1200]);
  });

  test('no window of one second holds more than max_per_second + burst - 1 slots, whatever the arrivals', () => {
    let s = EMPTY;
    const at: number[] = [];
    for (let now = 0; now < 5000; now += 37) {
      const r = reserveMany(s, now, 3, { maxPerSecond: 10, burst: 4 });
      s = r.state;
      at.push(...r.at);
    }
    const most = Math.max(...at.map((t) => at.filter((u) => u >= t && u < t + 1000).length));
    expect(most).toBeLessThanOrEqual(10 + 4 - 1);
  });

  test('a slot reserved after a quiet spell is now, not the old schedule', () => {
    const { state } = reserveMany(EMPTY, 1000, 3);
    expect(reserveMany(state, 60_000, 1).at).toEqual([60_000]);
  });

  test('a retry goes first: it takes the next slot from now and every slot reserved after moves back one interval', () => {
    const { state, at } = reserveMany(EMPTY, 1000, 5);
    const r = reserve(state, 1000, RATE, true);
    expect(slotAt(r.state, r.slot)).toBe(1000);
    expect(at.map((_, i) => slotAt(r.state, i * 100 + 1000 - state.shift))).toEqual(at.map((t) => t + 100));
  });
});

describe('slots put first', () => {
  test('several put first at once (deliveries that missed their slot while no worker ran) take consecutive slots, not one', () => {
    const { state } = reserveMany(EMPTY, 0, 50);
    let s = state;
    const at = [1, 2, 3].map(() => {
      const r = reserve(s, 3000, RATE, true);
      s = r.state;
      return slotAt(s, r.slot);
    });
    expect(at).toEqual([3000, 3100, 3200]);
  });

  test('slots at sending: at least the lead ahead, one per interval (burst at once after a quiet spell), none during a pause', () => {
    let s = EMPTY;
    const at = [0, 0, 0, 50, 400].map((now) => {
      const r = sendSlot(s, now, { maxPerSecond: 10, burst: 2 }, 100);
      s = r.state;
      return r.at;
    });
    expect(at).toEqual([100, 100, 200, 300, 500]);
    expect(sendSlot(pause(EMPTY, 0, 3000), 1000, RATE, 100).at).toBe(3000);
  });
});

describe('a pause asked by the receiver', () => {
  test('moves every slot not yet reached back by the pause, keeping their order and spacing', () => {
    const { state, at } = reserveMany(EMPTY, 0, 5);
    const paused = pause(state, 150, 2150);
    const slots = at.map((t) => t - state.shift);
    expect(slots.map((slot) => slotAt(paused, slot))).toEqual([2150, 2150, 2200, 2300, 2400]);
  });

  test('a new slot during a pause falls at its end; a shorter pause inside a longer one changes nothing', () => {
    const paused = pause(EMPTY, 0, 5000);
    expect(pause(paused, 100, 3000)).toBe(paused);
    const r = reserve(paused, 100, RATE, false);
    expect(slotAt(r.state, r.slot)).toBe(5000);
  });

  test('a retry during a pause goes first when it ends', () => {
    const { state } = reserveMany(EMPTY, 0, 20);
    const paused = pause(state, 100, 5000);
    const r = reserve(paused, 200, RATE, true);
    expect(slotAt(r.state, r.slot)).toBe(5000);
  });
});

describe('max_in_flight: places, a queue of tickets, leases', () => {
  const LIMIT = { burst: 1, maxInFlight: 2 };
  const waiterOf = (ticket: number, revision: number): FoundWaiter => ({
    ticket,
    holderId: `d${ticket}#0`,
    workflowId: `w${ticket}`,
    leaseMs: 10_000,
    since: 0,
    revision,
  });

  test('places are held at once while free; the third asker is queued with the next ticket', () => {
    let s = EMPTY;
    const answers = ['a', 'b', 'c', 'd'].map((id) => {
      const r = ask(s, 0, LIMIT, id, 10_000);
      s = r.state;
      return r.held ? 'held' : `ticket ${r.ticket}`;
    });
    expect(answers).toEqual(['held', 'held', 'ticket 0', 'ticket 1']);
  });

  test('a freed place goes to the lowest ticket, and the next scan starts at the first waiter left', () => {
    let s = EMPTY;
    for (const id of ['a', 'b', 'c', 'd', 'e']) s = ask(s, 0, LIMIT, id, 10_000).state;
    s = release(s, 'a');
    const g = grant(s, 1, LIMIT, [waiterOf(0, 3), waiterOf(1, 4), waiterOf(2, 5)], 6);
    expect(g.given.map((w) => w.ticket)).toEqual([0]);
    expect(g.state.granted).toBe(1);
    expect(g.state.scanFrom).toBe(4);
    expect(holds(g.state, 'd0#0')).toBe(true);
  });

  test('a holder whose lease ended gives its place back; an asker never jumps the queue', () => {
    let s = EMPTY;
    for (const id of ['a', 'b', 'c']) s = ask(s, 0, LIMIT, id, 10_000).state;
    const late = ask(s, 20_000, LIMIT, 'z', 10_000);
    expect(late.held).toBe(false);
    const g = grant(s, 20_000, LIMIT, [waiterOf(0, 2)], 3);
    expect(g.given).toHaveLength(1);
    expect(g.state.holders.map((h) => h.id)).toEqual(['d0#0']);
  });

  test('no place is given during a pause', () => {
    let s = EMPTY;
    for (const id of ['a', 'b', 'c']) s = ask(s, 0, LIMIT, id, 10_000).state;
    s = pause(release(s, 'a'), 0, 5000);
    expect(grant(s, 100, LIMIT, [waiterOf(0, 2)], 3).given).toEqual([]);
    expect(grant(s, 5000, LIMIT, [waiterOf(0, 2)], 3).given).toHaveLength(1);
  });

  test('the backlog counts slots reserved ahead and waiters without a place', () => {
    const { state } = reserveMany(EMPTY, 0, 11);
    expect(backlogOf(state, 0, RATE)).toBe(10);
    let s = EMPTY;
    for (const id of ['a', 'b', 'c', 'd']) s = ask(s, 0, LIMIT, id, 10_000).state;
    expect(backlogOf(s, 0, LIMIT)).toBe(2);
  });

  test('the backlog counts the slots at sending reserved ahead, where a restart leaves the deliveries whose slots fell meanwhile', () => {
    // The schedule's slots are all past (a worker was down); 31 deliveries took slots at sending.
    let s = reserveMany(EMPTY, 0, 5).state;
    for (let i = 0; i < 31; i++) s = sendSlot(s, 60_000, RATE, 0).state;
    expect(backlogOf(s, 60_000, RATE)).toBe(30);
  });
});
