import type { OutboxSignal } from '../signals/signal.ts';
import type { Queryable } from './db.ts';
import { type Emitted, insertSql, outboxRow } from './table.ts';

const INSERT = insertSql(['$1', '$2', '$3']);

/**
 * Writes the signal into the outbox with node-postgres, on the connection of the caller's
 * transaction (a `PoolClient` between BEGIN and COMMIT): it is sent once that commits, and never
 * if it rolls back. Throws InvalidSignal for a signal the service would refuse.
 */
export const emit = async (tx: Queryable, signal: OutboxSignal): Promise<Emitted> => {
  const { values, emitted } = outboxRow(signal);
  await tx.query(INSERT, values);
  return emitted;
};
