import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../../src/event-store/sqlite';
import { EventStore } from '../../src/event-store/port';
import { silentLogger } from '../../src/kernel/logger';
import { openReadModel, ReadModel, ReadModelUnavailable } from '../../src/projections/read-model';
import { startProjection } from '../../src/projections/runner';
import { storeTrigger } from '../support/store-trigger';
import { triggerBody } from '../support/trigger-body';

/**
 * A rebuilt read model starts empty and fills from the first event: until it has caught up, its
 * reads answer ReadModelUnavailable (503), never a half-built answer such as "no such trigger".
 * Real SQLite files in a temp dir.
 */
let dir: string;
let store: EventStore;
let model: ReadModel;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'at-rebuild-'));
  store = openSqliteStore(join(dir, 'events.sqlite'));
  model = openReadModel(join(dir, 'read-model.sqlite'));
});
afterEach(async () => {
  model.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

test('after a rebuild, each part answers 503 until it is recovered', () => {
  model.rebuild();
  expect(() => model.get('t1')).toThrow(ReadModelUnavailable);
  expect(() => model.matching('post_save', 'shop', 'order')).toThrow(ReadModelUnavailable);
  expect(() => model.signalPage({}, 10)).toThrow(ReadModelUnavailable);
  // The runners still write to it meanwhile.
  expect(model.checkpoint()).toBe('start');
  model.recovered();
  expect(model.get('t1')).toBeUndefined();
  expect(() => model.signalPage({}, 10)).toThrow(/signals are being rebuilt/);
  model.signalsRecovered();
  expect(model.signalPage({}, 10)).toEqual([]);
});

test('the runner ends the recovery once the rebuilt file has caught up with the store', async () => {
  const projection = await startProjection(store, model, silentLogger);
  await projection.ready;
  const id = await storeTrigger({ store, projection }, triggerBody());
  expect(model.get(id)?.id).toBe(id);
  model.rebuild(); // as the runner does when it finds the file damaged or replaced
  expect(() => model.get(id)).toThrow(ReadModelUnavailable);
  for (const end = Date.now() + 10_000; model.recovering() && Date.now() < end;) await new Promise((r) => setTimeout(r, 50));
  expect(model.get(id)?.id).toBe(id);
  await projection.stop();
});
