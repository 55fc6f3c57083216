import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ServerProcess, startServerProcess, stopServerProcess } from '../../support/server-process';
import { testServers } from '../../support/servers';
import { aTrigger, tempDir } from '../../support/test-app';

/**
 * The API role on a disk whose syncs fail: a preloaded shim (test/support/fail-wal-sync.c) makes
 * fdatasync and fsync of the store's log fail with EIO while a flag file exists. A commit is then
 * written but not known to be durable.
 */
let dir: string;
let flag: string;
let api: ServerProcess;

beforeAll(async () => {
  dir = tempDir('at-sync-fails-');
  flag = join(dir, 'fail-syncs');
  const shim = join(dir, 'fail-wal-sync.so');
  execFileSync('cc', ['-shared', '-fPIC', '-O2', '-o', shim, join(__dirname, '../../support/fail-wal-sync.c'), '-ldl']);
  api = await startServerProcess(
    {
      DATA_DIR: dir,
      TEMPORAL_ADDRESS: testServers().temporalAddress,
      TEMPORAL_TASK_QUEUE: `sync-fails-${process.pid}`,
      LD_PRELOAD: shim,
      FAIL_WAL_SYNC_FLAG: flag,
    },
    60_000,
    ['--role=api'],
  );
}, 90_000);
afterAll(async () => {
  if (api) await stopServerProcess(api);
  rmSync(dir, { recursive: true, force: true });
});

const post = (path: string, body: unknown) =>
  fetch(`${api.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const aCreate = () => post('/api/action-triggers', aTrigger({ msg_broker_queues: [] }));
const KEPT = 'the event store is unavailable: the log could not be synced to disk (EIO); the write may have been kept';
const NOT_WRITTEN = 'the event store is unavailable: the write failed (SQLITE_IOERR_FSYNC); nothing was written';

test('writes whose log cannot be synced answer 503 saying whether they may have been kept; a retried signal is stored once; the process never stops', async () => {
  // SQLite syncs the log's header itself in the first commit after the log starts over (a write
  // then fails inside SQLite: nothing written); later commits are synced by the store (the
  // commit stays: maybe kept). A write right after another meets the second case.
  const answers = { created: 0, kept: 0, notWritten: 0 };
  for (let round = 0; round < 20 && answers.kept < 3; round++) {
    expect((await aCreate()).status).toBe(201);
    answers.created += 1;
    writeFileSync(flag, '');
    const refused = await aCreate();
    rmSync(flag);
    expect({ status: refused.status, retryAfter: refused.headers.get('retry-after') }).toEqual({ status: 503, retryAfter: '2' });
    const { detail } = (await refused.json()) as { detail: string };
    expect([KEPT, NOT_WRITTEN]).toContain(detail);
    if (detail === KEPT) answers.kept += 1;
    else answers.notWritten += 1;
  }
  expect(answers.kept).toBe(3);

  const signal = { id: `sync-fails-${process.pid}`, signal: 'post_save', app_label: 'shop', model_name: 'nothing', instance: { id: 1 } };
  expect((await aCreate()).status).toBe(201);
  answers.created += 1;
  writeFileSync(flag, '');
  expect((await post('/api/signals', signal)).status).toBe(503);
  expect((await fetch(`${api.url}/healthz`)).status).toBe(200);
  rmSync(flag);
  const retried = await post('/api/signals', signal);
  expect(retried.status).toBe(202);
  // The triggers created under failing syncs that were kept are listed like the others.
  const listed = async () => ((await (await fetch(`${api.url}/api/action-triggers?limit=100`)).json()) as unknown[]).length;
  const total = answers.created + answers.kept;
  for (const end = Date.now() + 5000; (await listed()) !== total && Date.now() < end;) await new Promise((r) => setTimeout(r, 50));
  expect(await listed()).toBe(total);
  await stopServerProcess(api);

  const events = new Database(join(dir, 'events.sqlite'), { readonly: true });
  try {
    const count = (sql: string, ...args: string[]) => (events.prepare(sql).get(...args) as { n: number }).n;
    // Every create answered 201 or "may have been kept" is in the file; none answered "nothing was written".
    expect(count("SELECT COUNT(*) AS n FROM events WHERE type = 'TriggerCreated'")).toBe(answers.created + answers.kept);
    expect(count("SELECT COUNT(*) AS n FROM events WHERE type = 'SignalAccepted' AND stream_id = ?", `signal-${signal.id}`)).toBe(1);
  } finally {
    events.close();
  }
}, 120_000);
