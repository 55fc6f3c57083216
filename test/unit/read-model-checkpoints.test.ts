import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { StoredEvent } from '../../src/event-store/port';
import { openReadModel } from '../../src/projections/read-model';
import { streamOf } from '../../src/model/triggers/events';
import { benchDefinition } from '../../bench/seed';

/**
 * The connection that applies events never checkpoints the write-ahead log itself (that cost the
 * API's main thread a share of every create); a thread of its own copies the log into the file.
 * Real SQLite files in a temp dir: the file grows only when a checkpoint has copied pages into it.
 */
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'at-checkpoints-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const created = (position: number): StoredEvent => {
  const id = uuidv7();
  return {
    position: BigInt(position),
    streamId: streamOf(id),
    revision: 0n,
    type: 'TriggerCreated',
    data: { schema_version: 1, trigger_id: id, definition: benchDefinition(position) },
    metadata: { actor: 'test', request_id: `r-${position}`, occurred_at: new Date().toISOString() },
  };
};

const applyAndWatch = async (backgroundCheckpoints: boolean, waitMs: number) => {
  const file = join(dir, `read-model-${backgroundCheckpoints}.sqlite`);
  const model = openReadModel(file, { backgroundCheckpoints });
  try {
    const before = statSync(file).size;
    // ~100 pages: far below SQLite's automatic checkpoint (1,000 pages).
    for (let b = 0; b < 20; b++) model.apply(Array.from({ length: 10 }, (_, i) => created(b * 10 + i + 1)));
    const walPages = statSync(`${file}-wal`).size / 4096;
    const deadline = Date.now() + waitMs;
    while (statSync(file).size === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    return { before, after: statSync(file).size, walPages, triggers: model.list({}, 500, undefined).items.length };
  } finally {
    model.close();
  }
};

test('the log is copied into the file within about a second, with no checkpoint on the applying connection', async () => {
  const background = await applyAndWatch(true, 3000);
  expect(background.walPages).toBeGreaterThan(50);
  expect(background.walPages).toBeLessThan(1000);
  expect(background.after).toBeGreaterThan(background.before);
  expect(background.triggers).toBe(200);
});

test('without the thread, the same writes stay in the log (the applying connection would have to checkpoint)', async () => {
  const inline = await applyAndWatch(false, 1500);
  expect(inline.after).toBe(inline.before);
  expect(inline.triggers).toBe(200);
});
