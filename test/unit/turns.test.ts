import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { openSqliteStore } from '../../src/event-store/sqlite';
import { EventStore } from '../../src/event-store/port';
import { QUEUED, SKIPPED, TURN_ENDED, TurnEvent, turnStateOf } from '../../src/ordering/turns';
import { createTurnStore } from '../../src/ordering/turn-store';
import type { GiveTurn, TurnGiven } from '../../src/dispatch/ordering';
import { tempDir } from '../support/test-app';

/**
 * An instance order kept in our store: dispatches queued in store order, each one's turn when
 * every one before it ended, the next told when a turn ends, and one that closed without ending
 * its turn passed over. Real SQLite store; the Temporal side is a recorded function.
 */
const d = (n: number) => ({ workflowId: `signal-${n}`, position: String(n) });
const ev = (type: string, n: number, revision: number): TurnEvent => ({ type, data: d(n), revision: BigInt(revision) });
const ids = (events: TurnEvent[]) => turnStateOf(events).pending.map((p) => p.workflowId);

test("what an order's events say: queued ones wait in position order until they end; one queued again counts once; an end covers every position before it; a skipped one never waits", () => {
  expect(ids([ev(QUEUED, 3, 0), ev(QUEUED, 5, 1), ev(QUEUED, 3, 2)])).toEqual(['signal-3', 'signal-5']);
  expect(ids([ev(QUEUED, 3, 0), ev(QUEUED, 5, 1), ev(TURN_ENDED, 3, 2)])).toEqual(['signal-5']);
  // A relay that took over queues again what it read after the checkpoint; ended ones stay ended even after their queue record was cut.
  expect(ids([ev(TURN_ENDED, 5, 7), ev(QUEUED, 4, 8), ev(QUEUED, 5, 9), ev(QUEUED, 6, 10)])).toEqual(['signal-6']);
  // Out of order appends (two relays at a take-over) still wait by position.
  expect(ids([ev(QUEUED, 9, 0), ev(QUEUED, 8, 1)])).toEqual(['signal-8', 'signal-9']);
  expect(ids([ev(QUEUED, 1, 0), ev(QUEUED, 2, 1), ev(SKIPPED, 2, 2), ev(QUEUED, 3, 3)])).toEqual(['signal-1', 'signal-3']);
  // Events of another shape are not guessed at.
  expect(ids([{ type: QUEUED, data: { workflowId: 'x', position: 'first' }, revision: 0n }, ev(QUEUED, 1, 1)])).toEqual(['signal-1']);
  // The stream may be cut before the first waiting one and the last end, never past either.
  expect(turnStateOf([ev(QUEUED, 1, 0), ev(QUEUED, 2, 1), ev(TURN_ENDED, 1, 2), ev(QUEUED, 3, 3)]).cutBefore).toBe(1n);
  expect(turnStateOf([ev(QUEUED, 1, 0), ev(TURN_ENDED, 1, 1)]).cutBefore).toBe(1n);
});

let dir: string;
let store: EventStore;
beforeEach(() => {
  dir = tempDir('at-turns-');
  store = openSqliteStore(join(dir, 'events.sqlite'));
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Records each turn given; `answers` says what Temporal answers for a workflow, one answer per try, the last again (default: it runs). */
const recordingGive = (answers: Record<string, TurnGiven | TurnGiven[]> = {}) => {
  const given: string[] = [];
  const give: GiveTurn = async (workflowId, triggerId) => {
    given.push(`${workflowId} ${triggerId}`);
    const answer = answers[workflowId] ?? 'given';
    return Array.isArray(answer) ? (answer.length > 1 ? answer.shift()! : answer[0]!) : answer;
  };
  return { give, given };
};

test('the first queued has its turn; when it ends the next is told, one that has not started yet once it runs', async () => {
  const turns = createTurnStore(store);
  expect(await turns.isIdle('ordered-t-k')).toBe(true);
  await turns.queue('ordered-t-k', [d(1), d(2)]);
  await turns.queue('ordered-t-k', [d(3)]);
  expect(await turns.isIdle('ordered-t-k')).toBe(false);
  expect(await turns.isTurn('ordered-t-k', d(1), 't')).toBe(true);
  expect(await turns.isTurn('ordered-t-k', d(2), 't')).toBe(false);
  const { give, given } = recordingGive({ 'signal-3': ['not-started', 'not-started', 'given'] });
  await turns.end('ordered-t-k', d(1), 't', give);
  expect(given).toEqual(['signal-2 t']);
  expect(await turns.isTurn('ordered-t-k', d(2), 't')).toBe(true);
  expect(await turns.isTurn('ordered-t-k', d(3), 't')).toBe(false);
  // signal-3 had not started: told again until it runs.
  await turns.end('ordered-t-k', d(2), 't', give);
  expect(given).toEqual(['signal-2 t', 'signal-3 t', 'signal-3 t', 'signal-3 t']);
  expect(await turns.isTurn('ordered-t-k', d(3), 't')).toBe(true);
  // Other orders are untouched.
  expect(await turns.isIdle('ordered-t-other')).toBe(true);
  await turns.end('ordered-t-k', d(3), 't', give);
  expect(await turns.isIdle('ordered-t-k')).toBe(true);
});

test("a dispatch that closed without ending its turn is passed over: at the end of the one before it, and by a waiting one's check", async () => {
  const turns = createTurnStore(store);
  await turns.queue('ordered-t-k', [d(1), d(2), d(3), d(4)]);
  const { give, given } = recordingGive({ 'signal-2': 'closed' });
  await turns.end('ordered-t-k', d(1), 't', give);
  expect(given).toEqual(['signal-2 t', 'signal-3 t']);
  expect(await turns.isTurn('ordered-t-k', d(3), 't')).toBe(true);
  // signal-3 is terminated while it has its turn: signal-4's own check passes it over, a plain check does not.
  expect(await turns.isTurn('ordered-t-k', d(4), 't')).toBe(false);
  const closed = recordingGive({ 'signal-3': 'closed' });
  expect(await turns.isTurn('ordered-t-k', d(4), 't', closed.give)).toBe(true);
  // A check while the one before still runs only tells it again.
  await turns.queue('ordered-t-k', [d(5)]);
  const running = recordingGive();
  expect(await turns.isTurn('ordered-t-k', d(5), 't', running.give)).toBe(false);
  expect(running.given).toEqual(['signal-4 t']);
});

test('a dispatch that will never start is skipped without holding the next, wherever it waits', async () => {
  const turns = createTurnStore(store);
  await turns.queue('ordered-t-k', [d(1), d(2), d(3)]);
  const { give, given } = recordingGive();
  await turns.skip('ordered-t-k', d(2), 't', give);
  expect(given).toEqual(['signal-1 t']);
  await turns.end('ordered-t-k', d(1), 't', give);
  expect(given).toEqual(['signal-1 t', 'signal-3 t']);
  await turns.skip('ordered-t-k', d(3), 't', give);
  expect(await turns.isIdle('ordered-t-k')).toBe(true);
});

test('an order that goes on for ever keeps a short stream: what every turn ended is cut away', async () => {
  const turns = createTurnStore(store);
  const { give } = recordingGive();
  for (let n = 1; n <= 300; n++) {
    await turns.queue('ordered-t-k', [d(n)]);
    if (n > 1) await turns.end('ordered-t-k', d(n - 1), 't', give);
  }
  expect(await turns.isTurn('ordered-t-k', d(300), 't')).toBe(true);
  expect(await turns.isTurn('ordered-t-k', d(299), 't')).toBe(true);
  expect((await store.read('ordered-t-k')).length).toBeLessThanOrEqual(64);
  // A relay that took over queues an ended one again: it does not wait, nor make others wait.
  await turns.queue('ordered-t-k', [d(150), d(301)]);
  expect(await turns.isTurn('ordered-t-k', d(301), 't')).toBe(false);
  await turns.end('ordered-t-k', d(300), 't', give);
  expect(await turns.isTurn('ordered-t-k', d(301), 't')).toBe(true);
});

test("the relay's look at whether an order is idle reads a bounded part of it: a long one counts as busy", async () => {
  const turns = createTurnStore(store);
  await turns.queue(
    'ordered-t-k',
    Array.from({ length: 200 }, (_, i) => d(i + 1)),
  );
  const { give } = recordingGive();
  for (let n = 1; n < 200; n++) await store.append('ordered-t-k', [{ type: 'TurnEnded', data: d(n), metadata: {} }], 'any');
  // 399 events, of which only signal-200 waits: busy either way; once it ended and a cut came, idle.
  expect(await turns.isIdle('ordered-t-k')).toBe(false);
  await turns.end('ordered-t-k', d(200), 't', give);
  expect((await store.read('ordered-t-k')).length).toBe(1);
  expect(await turns.isIdle('ordered-t-k')).toBe(true);
});

test('a next dispatch that does not start (Temporal away) fails the pass after a while, and the caller tries again', async () => {
  // Waiting 300 ms here (10 s in the service).
  const turns = createTurnStore(store, 300);
  await turns.queue('ordered-t-k', [d(1), d(2)]);
  const { give, given } = recordingGive({ 'signal-2': 'not-started' });
  const t0 = Date.now();
  await expect(turns.end('ordered-t-k', d(1), 't', give)).rejects.toThrow('signal-2, next in its instance order, has not started yet');
  expect(Date.now() - t0).toBeGreaterThanOrEqual(300);
  expect(given.length).toBeGreaterThan(3);
  // The end itself was written: trying again only tells the next.
  const running = recordingGive();
  await turns.end('ordered-t-k', d(1), 't', running.give);
  expect(running.given).toEqual(['signal-2 t']);
});
