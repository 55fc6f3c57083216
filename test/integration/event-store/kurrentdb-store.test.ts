import { openKurrentStore } from '../../../src/event-store/kurrentdb';
import { describeEventStoreContract } from '../../support/event-store-contract';

/** KurrentDB cannot run on these machines: this suite runs where KURRENTDB_CONNECTION_STRING is set. */
const connection = process.env.KURRENTDB_CONNECTION_STRING;
describeEventStoreContract('KurrentDB', async () => openKurrentStore(connection ?? ''), connection === undefined);
