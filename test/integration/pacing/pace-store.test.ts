import { freshStorePerTest } from '../../support/temp-store';
import { createPaceStore, paceStreamOf } from '../../../src/pacing/pace-store';
import { paceActivities } from '../../../src/pacing/pace-activities';
import { createLogger } from '../../../src/kernel/logger';
import type { Client } from '@temporalio/client';
import type { PaceLimit } from '../../../src/dispatch/pacing';

/**
 * A destination's pace on a real SQLite store: concurrent changes of one destination are decided
 * in turn and written together, and a stream is cut as it goes.
 */
const current = freshStorePerTest();
const log = createLogger('error');
const signalled: string[] = [];
const client = (() => ({
  workflow: { getHandle: (id: string) => ({ signal: async (_: unknown, holderId: string) => void signalled.push(`${id}:${holderId}`) }) },
})) as unknown as () => Client;
const activitiesFor = (limits: Record<string, PaceLimit>) =>
  paceActivities({ store: current.store, limitOf: (key) => limits[key], log, client });

test('200 reservations asked at once get 200 slots at least one interval apart (exactly, once a backlog forms), in far fewer writes than 200', async () => {
  const pace = activitiesFor({ 'webhook:a': { maxPerSecond: 50, burst: 1 } });
  const slots = await Promise.all(Array.from({ length: 200 }, () => pace.reserveSlot({ key: 'webhook:a', first: false })));
  const at = slots.map((s) => s!.at).sort((a, b) => a - b);
  const gaps = at.slice(1).map((t, i) => t - at[i]!);
  expect(gaps.filter((g) => g < 20 - 1e-6)).toEqual([]);
  // The first write's fsync lets the clock pass the schedule once or twice; then the backlog runs at the rate.
  expect(gaps.slice(-150).filter((g) => Math.abs(g - 20) > 1e-6)).toEqual([]);
  const [last] = await current.store.read(paceStreamOf('webhook:a'), { direction: 'backwards', maxCount: 1 });
  expect(Number(last!.revision) + 1).toBeLessThan(50);
});

test('a stream of reservations alone is cut to its last events', async () => {
  const pace = activitiesFor({ 'webhook:b': { maxPerSecond: 1000, burst: 1 } });
  for (let i = 0; i < 200; i++) await pace.reserveSlot({ key: 'webhook:b', first: false });
  const events = await current.store.read(paceStreamOf('webhook:b'));
  expect(events.length).toBeLessThanOrEqual(64);
  expect(Number(events.at(-1)!.revision)).toBe(199);
});

test('max_in_flight 2: places asked at once are held by two and queued for the rest, each given in ticket order as places free', async () => {
  const pace = activitiesFor({ 'webhook:c': { maxInFlight: 2, burst: 1 } });
  const ask = (i: number) => pace.takePlace({ key: 'webhook:c', holderId: `d${i}#0`, workflowId: `w${i}`, leaseMs: 60_000 });
  const places = await Promise.all([0, 1, 2, 3, 4].map(ask));
  expect(places.map((p) => p.held)).toEqual([true, true, false, false, false]);
  signalled.length = 0;
  await pace.endAttempt({ key: 'webhook:c', holderId: 'd0#0' }, { sent: true });
  await pace.endAttempt({ key: 'webhook:c', holderId: 'd1#0' }, { sent: true });
  await pace.endAttempt({ key: 'webhook:c', holderId: 'd2#0' }, { sent: true });
  expect(signalled).toEqual(['w2:d2#0', 'w3:d3#0', 'w4:d4#0']);
  const { state } = await createPaceStore(current.store).read('webhook:c');
  expect(state.holders.map((h) => h.id)).toEqual(['d3#0', 'd4#0']);
});

test("a receiver's pause holds every attempt at sending until it ends", async () => {
  const pace = activitiesFor({ 'webhook:d': { maxPerSecond: 100, burst: 1 } });
  const until = Date.now() + 10_000;
  await pace.endAttempt({ key: 'webhook:d' }, { sent: true, pausedUntil: until });
  const held = await pace.sendNow('webhook:d', 100);
  // The pause's end, not a slot reserved for it: the attempt reserves anew once it is over.
  expect(held).toEqual({ until, reserved: false });
  expect((await pace.reserveSlot({ key: 'webhook:d', first: true }))!.paused).toBe(true);
});
