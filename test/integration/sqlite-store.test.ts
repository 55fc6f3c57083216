import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { openSqliteStore } from '../../src/event-store/sqlite';
import { describeEventStoreContract } from '../support/event-store-contract';
import { tempDir } from '../support/test-app';

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeEventStoreContract('embedded SQLite', async () => openSqliteStore(join(dir, 'events.sqlite')));
