import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { openSqliteStore } from '../../../src/event-store/sqlite';
import { openReadModel } from '../../../src/projections/read-model';
import { tempDir } from '../../support/test-app';

const runChild = (args: string[]) =>
  new Promise<number>((resolve) => {
    const child = spawn(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', join(__dirname, '../../support/append-from-process.ts'), ...args],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    child.on('exit', (code) => resolve(code ?? 1));
  });

test('two processes appending to one stream in one SQLite file lose nothing', async () => {
  const dir = tempDir();
  const file = join(dir, 'events.sqlite');
  const stream = 'action_trigger-shared';
  const codes = await Promise.all([runChild([file, stream, '150', 'a']), runChild([file, stream, '150', 'b'])]);
  expect(codes).toEqual([0, 0]);
  const store = openSqliteStore(file);
  const events = await store.read(stream);
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  expect(events).toHaveLength(300);
  expect(events.map((e) => e.revision)).toEqual(Array.from({ length: 300 }, (_, i) => BigInt(i)));
  for (const tag of ['a', 'b']) {
    expect(events.filter((e) => e.data.tag === tag).map((e) => e.data.i)).toEqual(Array.from({ length: 150 }, (_, i) => i));
  }
}, 60000);

/** A process that holds the write lock of a new file still in rollback mode (as one starting up does for a moment), then lets go. */
const HOLD_WRITE_LOCK = `
  const db = new (require('better-sqlite3'))(process.argv[1]);
  db.exec('CREATE TABLE t (x); BEGIN IMMEDIATE; INSERT INTO t VALUES (1)');
  console.log('locked');
  setTimeout(() => { db.exec('COMMIT'); db.close(); }, Number(process.argv[2]));`;

/** Opens `file` as each SQLite file the service keeps does, writes to it, and closes it. */
const OPENERS: Array<[string, (file: string) => Promise<void>]> = [
  [
    'the event store',
    async (file) => {
      const store = openSqliteStore(file);
      await store.append('action_trigger-after-wait', [{ type: 'TriggerActivated', data: {}, metadata: {} }], 'no_stream');
      await store.close();
    },
  ],
  [
    'the read model',
    async (file) => {
      openReadModel(file).close();
    },
  ],
];

test.each(OPENERS)(
  '%s: a process opening a new file while another holds its write lock waits for it, then opens it in WAL mode',
  async (_, open) => {
    const dir = tempDir();
    const file = join(dir, 'shared.sqlite');
    const holder = spawn(process.execPath, ['-e', HOLD_WRITE_LOCK, file, '500'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = once(holder, 'exit');
    await once(holder.stdout!, 'data');
    const started = Date.now();
    await open(file);
    const waited = Date.now() - started;
    expect(await exited).toEqual([0, null]);
    const db = new Database(file, { readonly: true });
    const mode = db.pragma('journal_mode', { simple: true });
    db.close();
    rmSync(dir, { recursive: true, force: true });
    expect(waited).toBeGreaterThan(100);
    expect(mode).toBe('wal');
  },
  30000,
);
