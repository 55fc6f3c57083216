import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Config } from '../config';
import { EventStore } from './port';
import { openSqliteStore } from './sqlite';
import { openKurrentStore } from './kurrentdb';

/** The configured event store: embedded SQLite under DATA_DIR (default) or KurrentDB. */
export const openEventStore = (config: Config): EventStore => {
  if (config.eventStore === 'kurrentdb') return openKurrentStore(config.kurrentConnectionString ?? '');
  mkdirSync(config.dataDir, { recursive: true });
  return openSqliteStore(join(config.dataDir, 'events.sqlite'));
};
