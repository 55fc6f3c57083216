import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { EventStore } from './port';
import { openSqliteStore } from './sqlite';
import { openKurrentStore } from './kurrentdb';

/** The configured event store: embedded SQLite under DATA_DIR (default) or KurrentDB. */
/** Which store, and where: the config's `EVENT_STORE`, `KURRENTDB_CONNECTION_STRING` and `DATA_DIR`. */
export interface StoreChoice { readonly eventStore: string; readonly kurrentConnectionString?: string; readonly dataDir: string }

export const openEventStore = (config: StoreChoice): EventStore => {
  if (config.eventStore === 'kurrentdb') return openKurrentStore(config.kurrentConnectionString ?? '');
  mkdirSync(config.dataDir, { recursive: true });
  return openSqliteStore(join(config.dataDir, 'events.sqlite'));
};
