import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventRow, recentAppends } from '../../src/event-store/recent-appends';
import { openSqliteStore } from '../../src/event-store/sqlite';
import { StoredEvent } from '../../src/event-store/port';

const row = (position: number, category = 'action_trigger'): EventRow & { position: bigint } => ({
  position: BigInt(position),
  stream_id: `${category}-${position}`,
  revision: 0n,
  type: 'T',
  data: `{"n":${position}}`,
  metadata: '{}',
});
const positions = (r: { rows: EventRow[] } | undefined) => r?.rows.map((x) => Number(x.position));
const all = () => true;

test('a run of positions this process committed is taken up to the first one it did not', () => {
  const recent = recentAppends();
  recent.add([row(3), row(4), row(5)]);
  recent.add([row(8), row(9)]); // 6 and 7: another process's
  expect(positions(recent.after('action_trigger', 2n, 100, all))).toEqual([3, 4, 5]);
  expect(positions(recent.after('action_trigger', 4n, 100, all))).toEqual([5]);
  // After 5 the next position is not here: the caller reads the file, which has 6 and 7.
  expect(recent.after('action_trigger', 5n, 100, all)).toBeUndefined();
  expect(positions(recent.after('action_trigger', 7n, 100, all))).toEqual([8, 9]);
  expect(recent.after('action_trigger', 1n, 100, all)).toBeUndefined();
  expect(recent.after('action_trigger', 9n, 100, all)).toBeUndefined();
});

test('other categories in the run are passed over; a run with none of the category is a read of the file', () => {
  const recent = recentAppends();
  recent.add([row(1, 'signal'), row(2), row(3, 'signal'), row(4)]);
  expect(positions(recent.after('action_trigger', 0n, 100, all))).toEqual([2, 4]);
  expect(positions(recent.after('signal', 0n, 100, all))).toEqual([1, 3]);
  expect(recent.after('signal', 3n, 100, all)).toBeUndefined();
});

test('the limit and the byte bound end a batch early', () => {
  const recent = recentAppends();
  recent.add([row(1), row(2), row(3), row(4)]);
  expect(positions(recent.after('action_trigger', 0n, 2, all))).toEqual([1, 2]);
  let taken = 0;
  const batch = recent.after('action_trigger', 0n, 100, () => ++taken <= 3);
  expect([positions(batch), batch?.cut]).toEqual([[1, 2, 3], true]);
});

test('it keeps at most 4 MiB of rows: a burst of large definitions leaves only the newest', () => {
  const recent = recentAppends();
  const large = 'x'.repeat(100 * 1024);
  recent.add(Array.from({ length: 100 }, (_, i) => ({ ...row(i + 1), data: large })));
  expect(recent.after('action_trigger', 0n, 100, all)).toBeUndefined();
  expect(recent.after('action_trigger', 59n, 100, all)).toBeUndefined();
  expect(positions(recent.after('action_trigger', 98n, 100, all))).toEqual([99, 100]);
  expect(positions(recent.after('action_trigger', 70n, 100, all))?.length).toBeLessThanOrEqual(40);
});

test('a subscription in the process that appended takes its events from memory, not from the file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'at-recent-'));
  const file = join(dir, 'events.sqlite');
  const store = openSqliteStore(file);
  const handed: StoredEvent[] = [];
  let got: () => void = () => undefined;
  const gotOne = new Promise<void>((r) => {
    got = r;
  });
  const sub = store.subscribe(
    'start',
    async (batch) => {
      handed.push(...batch);
      got();
    },
    (e) => {
      throw e;
    },
  );
  try {
    await new Promise((r) => setTimeout(r, 50)); // caught up with the empty store, asleep
    await store.append('action_trigger-a', [{ type: 'TriggerCreated', data: { n: 1 }, metadata: { actor: 'x' } }], 'no_stream');
    // Gone from the file before the subscription runs again: only memory still has it.
    const other = new Database(file);
    other.prepare('DELETE FROM events').run();
    other.close();
    await gotOne;
    expect(handed.map((e) => [e.position, e.streamId, e.revision, e.type, e.data, e.metadata])).toEqual([
      [1n, 'action_trigger-a', 0n, 'TriggerCreated', { n: 1 }, { actor: 'x' }],
    ]);
  } finally {
    await sub.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
