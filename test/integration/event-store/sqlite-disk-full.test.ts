import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { ServerProcess, startServerProcess, stopServerProcess } from '../../support/server-process';
import { testServers } from '../../support/servers';
import { aTrigger, tempDir } from '../../support/test-app';

/**
 * The API role on a disk that fills up: run under `prlimit --fsize`, none of its files may grow
 * past 1.5 MB (Node ignores SIGXFSZ, so a write beyond fails with EFBIG, as one on a full disk
 * fails with ENOSPC). The event store, its log and the read model all reach the limit.
 */
const LIMIT_BYTES = 1_500_000;
/** Far more creates than 1.5 MB of events hold (each stores ~1.2 KB of JSON), sent 8 at a time. */
const MAX_CREATES = 4_000;
const IN_FLIGHT = 8;

let dir: string;
let api: ServerProcess;

beforeAll(async () => {
  dir = tempDir('at-disk-full-');
  api = await startServerProcess(
    { DATA_DIR: dir, TEMPORAL_ADDRESS: testServers().temporalAddress, TEMPORAL_TASK_QUEUE: `disk-full-${process.pid}` },
    60_000,
    ['--role=api'],
    ['prlimit', `--fsize=${LIMIT_BYTES}:${LIMIT_BYTES}`],
  );
}, 90_000);
afterAll(async () => {
  if (api) await stopServerProcess(api);
  rmSync(dir, { recursive: true, force: true });
});

test('creates answer 201 until the disk is full, then 503 saying why (never 500); the process stays up; exactly the creates answered 201 are stored', async () => {
  const body = JSON.stringify(aTrigger({ msg_broker_queues: [], payload: { note: 'n'.repeat(600) } }));
  const statuses = new Map<number, number>();
  let refused: { status: number; retryAfter: string | null; detail: string } | undefined;
  const create = async () => {
    const res = await fetch(`${api.url}/api/action-triggers`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    const text = await res.text();
    if (res.status !== 201) refused ??= { status: res.status, retryAfter: res.headers.get('retry-after'), detail: JSON.parse(text).detail };
  };
  for (let sent = 0; sent < MAX_CREATES && (statuses.get(503) ?? 0) < 20; sent += IN_FLIGHT) {
    await Promise.all(Array.from({ length: IN_FLIGHT }, create));
  }
  expect([...statuses.keys()].sort()).toEqual([201, 503]);
  expect(refused).toEqual({
    status: 503,
    retryAfter: '2',
    detail: expect.stringMatching(/^the event store is unavailable: the write failed \(SQLITE_(FULL|IOERR\w*)\); nothing was written$/),
  });
  expect((await fetch(`${api.url}/healthz`)).status).toBe(200);
  await stopServerProcess(api);
  const events = new Database(join(dir, 'events.sqlite'), { readonly: true });
  try {
    const stored = events.prepare("SELECT COUNT(*) AS n FROM events WHERE type = 'TriggerCreated'").get() as { n: number };
    expect(stored.n).toBe(statuses.get(201));
  } finally {
    events.close();
  }
}, 180_000);
