import Database from 'better-sqlite3';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { openSqliteStore } from '../../../src/event-store/sqlite';
import { describeEventStoreContract } from '../../support/event-store-contract';
import { tempDir } from '../../support/test-app';

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeEventStoreContract('embedded SQLite', async () => openSqliteStore(join(dir, 'events.sqlite')));

test('a file from before categories opens: its events keep their positions and are found by category', async () => {
  const file = join(dir, 'old.sqlite');
  const old = new Database(file);
  old.exec(`CREATE TABLE events (position INTEGER PRIMARY KEY AUTOINCREMENT, stream_id TEXT NOT NULL, revision INTEGER NOT NULL,
    type TEXT NOT NULL, data TEXT NOT NULL, metadata TEXT NOT NULL, UNIQUE (stream_id, revision))`);
  old
    .prepare('INSERT INTO events (stream_id, revision, type, data, metadata) VALUES (?, 0, ?, ?, ?)')
    .run('action_trigger-old', 'TriggerCreated', '{"n":1}', '{}');
  old.close();
  // Two processes' worth of opens at once: the migration runs once.
  const [store, other] = [openSqliteStore(file), openSqliteStore(file)];
  try {
    expect(await store.headPosition()).toBe(1n);
    expect(await store.headPosition('signal')).toBe('start');
    const appended = await other.append('signal-new', [{ type: 'SignalAccepted', data: {}, metadata: {} }], 'no_stream');
    expect(appended.position).toBe(2n);
    expect(await store.countAfter('signal', 'start', 10)).toBe(1);
    expect((await store.read('action_trigger-old')).map((e) => e.data)).toEqual([{ n: 1 }]);
  } finally {
    await store.close();
    await other.close();
  }
});

test('a subscription that sets no byte bound still reads at most 16 MiB of events per batch', async () => {
  const store = openSqliteStore(join(dir, 'large-backlog.sqlite'));
  try {
    const big = 'x'.repeat(1024 * 1024);
    for (let n = 0; n < 20; n++)
      await store.append(`action_trigger-big-${n}`, [{ type: 'TriggerCreated', data: { n, big }, metadata: {} }], 'no_stream');
    const batches: number[][] = [];
    await new Promise<void>((resolve, reject) => {
      const subscription = store.subscribe(
        'start',
        async (events) => {
          batches.push(events.map((e) => Number(e.data.n)));
          if (batches.flat().length === 20) void subscription.close().then(resolve);
        },
        reject,
      );
    });
    expect(batches.flat()).toEqual(Array.from({ length: 20 }, (_, n) => n));
    expect(Math.max(...batches.map((b) => b.length))).toBeLessThanOrEqual(16);
  } finally {
    await store.close();
  }
});
