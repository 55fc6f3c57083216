import Database from 'better-sqlite3';
import { readFileSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { GROUP_MAX_CHARS, groupSize } from '../../../src/event-store/group-commit';
import { openSqliteStore } from '../../../src/event-store/sqlite';
import { SQLITE_GROUP_MAX_CHARS } from '../../../src/event-store/sqlite-commits';
import request from 'supertest';
import { aTrigger, startTestApp, tempDir } from '../../support/test-app';

// The embedded store commits on the caller's thread without blocking it (src/event-store/sqlite-commits.ts):
// the log is made durable on libuv's thread pool, another process's write lock is waited for
// between turns of the event loop, checkpoints run on a thread of their own.

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const event = (n: number) => ({ type: 'SignalAccepted', data: { n }, metadata: {} });

test("an append waiting for another writer's lock leaves the event loop running, and commits once the lock is released", async () => {
  const file = join(dir, 'locked.sqlite');
  const store = openSqliteStore(file);
  // Another process's writer, holding the write lock for 400 ms (on this thread: a store waiting
  // in SQLite's busy handler would never let it go).
  const other = new Database(file);
  try {
    other.exec('BEGIN IMMEDIATE');
    const started = Date.now();
    const appending = store.append('signal-locked', [event(1)], 'no_stream');
    let ticks = 0;
    const ticking = setInterval(() => {
      ticks += 1;
    }, 10);
    await new Promise((r) => setTimeout(r, 400));
    other.exec('COMMIT');
    const appended = await appending;
    clearInterval(ticking);
    expect(ticks).toBeGreaterThanOrEqual(20);
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(appended.nextRevision).toBe(0n);
    expect((await store.read('signal-locked')).map((e) => e.data)).toEqual([{ n: 1 }]);
  } finally {
    other.close();
    await store.close();
  }
});

test('a write lock held by another process past 10 s: the create answers 503 saying why, writes nothing, and succeeds once the lock is free', async () => {
  const t = await startTestApp();
  const other = new Database(join(t.dir, 'events.sqlite'));
  try {
    other.exec('BEGIN IMMEDIATE');
    const refused = await request(t.app)
      .post('/api/action-triggers')
      .send(aTrigger({ msg_broker_queues: [] }));
    other.exec('ROLLBACK');
    expect({ status: refused.status, retryAfter: refused.headers['retry-after'], detail: refused.body.detail }).toEqual({
      status: 503,
      retryAfter: '2',
      detail: 'the event store is unavailable: another process has held the write lock for 10 s',
    });
    expect(other.prepare("SELECT COUNT(*) AS n FROM events WHERE stream_id LIKE 'action_trigger-%'").get()).toEqual({ n: 0 });
    expect(
      (
        await request(t.app)
          .post('/api/action-triggers')
          .send(aTrigger({ msg_broker_queues: [] }))
      ).status,
    ).toBe(201);
  } finally {
    other.close();
    await t.close();
  }
}, 30_000);

test('appends made together commit in order, each checked against its own expected revision', async () => {
  const store = openSqliteStore(join(dir, 'group.sqlite'));
  try {
    const results = await Promise.allSettled([
      store.append('signal-a', [event(1)], 'no_stream'),
      store.append('signal-a', [event(2)], 0n),
      store.append('signal-a', [event(3)], 0n),
      store.append('signal-b', [event(4), event(5)], 'any'),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ name: 'WrongExpectedRevision', expected: 0n, actual: 1n });
    expect((await store.read('signal-a')).map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }]);
    expect((await store.read('signal-b')).map((e) => e.revision)).toEqual([0n, 1n]);
  } finally {
    await store.close();
  }
});

test('a write SQLite refuses fails with its SQLite code; close waits for appends in hand and refuses later ones', async () => {
  const file = join(dir, 'refused.sqlite');
  const store = openSqliteStore(file);
  await store.append('signal-x', [event(1)], 'no_stream');
  const other = new Database(file);
  other.exec(
    "CREATE TRIGGER refuse BEFORE INSERT ON events WHEN NEW.stream_id = 'signal-refused' BEGIN SELECT RAISE(ABORT, 'refused'); END",
  );
  other.close();
  await expect(store.append('signal-refused', [event(2)], 'any')).rejects.toMatchObject({
    message: 'refused',
    code: 'SQLITE_CONSTRAINT_TRIGGER',
  });
  const inHand = store.append('signal-x', [event(3)], 0n);
  await store.close();
  await expect(inHand).resolves.toMatchObject({ nextRevision: 1n });
  await expect(store.append('signal-x', [event(4)], 'any')).rejects.toThrow('closed');
  await expect(store.truncateBefore('signal-x', 1n)).rejects.toThrow('closed');
  await expect(store.removeRecordedBefore('signal', new Date(), 10n, 10)).rejects.toThrow('closed');
  const check = new Database(file, { readonly: true });
  expect(check.prepare('SELECT COUNT(*) AS n FROM events').get()).toEqual({ n: 2 });
  check.close();
});

test('a commit takes queued appends up to GROUP_MAX_CHARS of JSON, always at least one', () => {
  expect(groupSize([])).toBe(0);
  expect(groupSize([10, 20, 30])).toBe(3);
  expect(groupSize([GROUP_MAX_CHARS + 1, 1])).toBe(1);
  expect(groupSize([GROUP_MAX_CHARS / 2, GROUP_MAX_CHARS / 2, 1])).toBe(2);
  expect(groupSize([5, 5, 5], 10)).toBe(2);
});

test('appends larger than one group together commit in order, in several groups', async () => {
  const store = openSqliteStore(join(dir, 'large.sqlite'));
  try {
    const big = 'x'.repeat(SQLITE_GROUP_MAX_CHARS / 2);
    const results = await Promise.all(
      [0, 1, 2, 3, 4].map((n) => store.append('signal-big', [{ type: 'Big', data: { n, big }, metadata: {} }], 'any')),
    );
    expect(results.map((r) => r.nextRevision)).toEqual([0n, 1n, 2n, 3n, 4n]);
    expect((await store.read('signal-big')).map((e) => e.data.n)).toEqual([0, 1, 2, 3, 4]);
  } finally {
    await store.close();
  }
});

test('a process with nothing else to do waits for close to finish before it exits', async () => {
  // Nothing the store holds may let node exit (code 0) before close resolves: a script that
  // appends, then closes, would stop silently (it once did, with a writer thread unref'd when idle).
  const file = join(dir, 'close-alone.sqlite');
  const script = `
    const { openSqliteStore } = require(${JSON.stringify(join(__dirname, '../../../src/event-store/sqlite'))});
    const store = openSqliteStore(${JSON.stringify(file)});
    store.append('signal-alone', [{ type: 'SignalAccepted', data: {}, metadata: {} }], 'no_stream')
      .then(() => store.close())
      .then(() => console.log('closed'));`;
  const child = spawnSync(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', script], { encoding: 'utf8', timeout: 20_000 });
  expect(child.stderr).toBe('');
  expect(child.stdout).toBe('closed\n');
  expect(child.status).toBe(0);
});

/**
 * Runs `script` (the store as `openSqliteStore`, the file as `file`) under strace, and returns the
 * system calls that matter here, in order: writes to the log, syncs of it, and what the script
 * writes to stdout (`mark`) when a write resolved or a subscriber got its events.
 */
const traced = (name: string, script: string) => {
  const file = join(dir, `${name}.sqlite`);
  const trace = join(dir, `${name}.strace`);
  const code = `
    const { openSqliteStore } = require(${JSON.stringify(join(__dirname, '../../../src/event-store/sqlite'))});
    const Database = require('better-sqlite3');
    const file = ${JSON.stringify(file)};
    const mark = (text) => require('node:fs').writeSync(1, text + '\\n');
    ${script}`;
  const child = spawnSync(
    'strace',
    [
      '-f',
      '-y',
      '-e',
      'trace=pwrite64,fdatasync,fsync,write',
      '-o',
      trace,
      process.execPath,
      '-r',
      'ts-node/register/transpile-only',
      '-e',
      code,
    ],
    { encoding: 'utf8', timeout: 60_000 },
  );
  expect(child.stderr).toBe('');
  const log = `${file}-wal`;
  // strace -f splits a call that another thread's call interrupted into "<unfinished ...>" and "<... resumed>".
  const calls = readFileSync(trace, 'utf8')
    .split('\n')
    .flatMap((line): string[] => {
      if (line.includes(`pwrite64(`) && line.includes(`<${log}>`)) return ['log written'];
      if (/f(data)?sync\(/.test(line) && line.includes(`<${log}>`))
        return [line.includes('unfinished') ? 'log sync started' : 'log synced'];
      if (/<\.\.\. f(data)?sync resumed>\) += 0/.test(line)) return ['log synced'];
      const marked = /write\(1<[^>]*>, "([a-z ]+)\\n"/.exec(line);
      return marked ? [`mark ${marked[1]}`] : [];
    });
  return { stdout: child.stdout, calls };
};

/** Whether the log was synced after its last write before `mark`, and before the mark. */
const syncedBefore = (calls: string[], mark: string) => {
  const at = calls.indexOf(`mark ${mark}`);
  expect(at).toBeGreaterThan(0);
  const lastWrite = calls.lastIndexOf('log written', at);
  expect(lastWrite).toBeGreaterThanOrEqual(0);
  return calls.slice(lastWrite, at).includes('log synced');
};

test('an append resolves only once its log is on disk', () => {
  const { stdout, calls } = traced(
    'durable-append',
    `
    const store = openSqliteStore(file);
    store.append('signal-d', [{ type: 'SignalAccepted', data: { n: 1 }, metadata: {} }], 'no_stream')
      .then(() => mark('appended')).then(() => store.close());`,
  );
  expect(stdout).toBe('appended\n');
  expect(syncedBefore(calls, 'appended')).toBe(true);
});

test("a subscriber gets another process's commit only once its log is on disk", () => {
  // The other writer commits without syncing (as every process's commits do, before their own sync).
  const { stdout, calls } = traced(
    'durable-read',
    `
    const store = openSqliteStore(file);
    const sub = store.subscribe('start', async (events) => {
      mark('handled');
      await sub.close();
      await store.close();
    }, (e) => { throw e; }, { category: 'signal', pollMs: 20 });
    const other = new Database(file);
    other.pragma('synchronous = OFF');
    other.prepare("INSERT INTO events (stream_id, revision, type, data, metadata) VALUES ('signal-other', 0, 'SignalAccepted', '{}', '{}')").run();
    other.close();`,
  );
  expect(stdout).toBe('handled\n');
  expect(syncedBefore(calls, 'handled')).toBe(true);
});
