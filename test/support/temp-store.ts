import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventStore } from '../../src/event-store/port';
import { openSqliteStore } from '../../src/event-store/sqlite';

/** A fresh SQLite event store in a temp directory for each test of the file, closed and removed after it. */
export const freshStorePerTest = () => {
  const current: { store: EventStore } = { store: undefined as unknown as EventStore };
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'at-store-'));
    current.store = openSqliteStore(join(dir, 'events.sqlite'));
  });
  afterEach(async () => {
    await current.store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return current;
};
