import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { EventStore } from './port';
import { openSqliteStore } from './sqlite';
import { openKurrentStore } from './kurrentdb';
import { openPostgresStore, PostgresOptions } from './postgres';

/** Which store, and where: the config's `EVENT_STORE`, its connection settings and `DATA_DIR`. */
export interface StoreChoice {
  readonly eventStore: string;
  readonly kurrentConnectionString?: string;
  readonly postgres?: PostgresOptions;
  readonly dataDir: string;
}

/** The configured event store: embedded SQLite under DATA_DIR (default), PostgreSQL or KurrentDB. */
export const openEventStore = async (config: StoreChoice): Promise<EventStore> => {
  if (config.eventStore === 'kurrentdb') return openKurrentStore(config.kurrentConnectionString ?? '');
  if (config.eventStore === 'postgres') return openPostgresStore(config.postgres!);
  mkdirSync(config.dataDir, { recursive: true });
  return openSqliteStore(join(config.dataDir, 'events.sqlite'));
};
