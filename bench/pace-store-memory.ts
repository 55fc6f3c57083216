import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import type { PaceLimit } from '../src/dispatch/pacing';
import { openSqliteStore } from '../src/event-store/sqlite';
import { silentLogger } from '../src/kernel/logger';
import { fullCollection } from '../src/kernel/idle-collection';
import { paceActivities } from '../src/pacing/pace-activities';
import { paceStreamOf } from '../src/pacing/pace-store';

const RATE_KEY = 'webhook:bench-rate';
const QUEUE_KEY = 'webhook:bench-queue';
const LIMITS: Record<string, PaceLimit> = { [RATE_KEY]: { maxPerSecond: 25, burst: 1 }, [QUEUE_KEY]: { maxInFlight: 2, burst: 1 } };

/**
 * A full collection first, so heap figures are what is still referenced. Taken when measured,
 * never at import: the flag it needs is set only for the moment (importing this file must not
 * give `gc` to every later context of the process, the test runner's included).
 */
const collect = () => {
  const gc = fullCollection();
  gc?.();
  gc?.();
};

const memory = () => {
  collect();
  const m = process.memoryUsage();
  return { rssMb: m.rss / 2 ** 20, heapMb: m.heapUsed / 2 ** 20 };
};

/** Events left in a stream and their bytes (data and metadata), read from the file by a second connection. */
const streamOnDisk = (file: string, key: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return db
      .prepare<[string], { events: number; bytes: number | null }>(
        'SELECT COUNT(*) AS events, SUM(LENGTH(data) + LENGTH(metadata)) AS bytes FROM events WHERE stream_id = ?',
      )
      .get(paceStreamOf(key))!;
  } finally {
    db.close();
  }
};

const fileMb = (file: string) =>
  [file, `${file}-wal`].reduce((sum, f) => {
    try {
      return sum + statSync(f).size / 2 ** 20;
    } catch {
      return sum;
    }
  }, 0);

export interface StorePhase {
  what: string;
  ops: number;
  msPerOp: number;
  events: number;
  kb: number;
  fileMb: number;
  rssMb: number;
  heapMb: number;
}

/**
 * The pace store alone, in this process, on a real SQLite event store: `count` reservations under
 * `max_per_second: 25` (the last one `count / 25` s ahead), `count` deliveries queued under
 * `max_in_flight: 2`, then `drain` attempts ended (each gives its place to the next waiter).
 * Each step is what one workflow's local activity does, one after another as a destination's are.
 * Returns the memory before and each phase's ms per operation, what the streams hold on disk
 * after their cuts, and the memory after.
 */
export const paceStoreMemory = async (count: number, drain: number) => {
  const dir = mkdtempSync(join(tmpdir(), 'at-bench-pace-store-'));
  const file = join(dir, 'events.sqlite');
  const store = openSqliteStore(file);
  let told = 0;
  // Tells go nowhere: the store's cost is measured, not Temporal's (a signal per place given, counted).
  const client = {
    workflow: {
      getHandle: () => ({
        signal: async () => {
          told++;
        },
      }),
    },
  } as unknown as Client;
  const paces = paceActivities({ store, limitOf: (key) => LIMITS[key], log: silentLogger, client: () => client });
  const phases: StorePhase[] = [];
  const phase = async (what: string, key: string, op: (i: number) => Promise<unknown>, ops = count) => {
    const t0 = performance.now();
    for (let i = 0; i < ops; i++) await op(i);
    const ms = performance.now() - t0;
    const onDisk = streamOnDisk(file, key);
    phases.push({
      what,
      ops,
      msPerOp: ms / ops,
      events: onDisk.events,
      kb: (onDisk.bytes ?? 0) / 1024,
      fileMb: fileMb(file),
      ...memory(),
    });
  };
  try {
    const before = memory();
    let last = 0;
    await phase('reserve a slot (max_per_second 25)', RATE_KEY, async () => {
      const slot = await paces.reserveSlot({ key: RATE_KEY, first: false });
      last = slot!.at;
    });
    const aheadS = (last - Date.now()) / 1000;
    const place = (i: number) => ({ key: QUEUE_KEY, holderId: `d${i}#0`, workflowId: `signal-${i}`, leaseMs: 3_600_000 });
    let queued = 0;
    await phase('take a place or queue (max_in_flight 2)', QUEUE_KEY, async (i) => {
      if (!(await paces.takePlace(place(i))).held) queued++;
    });
    // Attempt i ends: its place goes to the first waiter (i + 2), who is told.
    await phase(
      'end an attempt, the next waiter given its place',
      QUEUE_KEY,
      (i) => paces.endAttempt({ key: QUEUE_KEY, holderId: `d${i}#0` }, { sent: true }),
      Math.min(drain, count),
    );
    return { before, phases, aheadS, queued, told };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
};
