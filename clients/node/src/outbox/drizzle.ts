/** `@action-triggers/client/drizzle`: emit inside a Drizzle transaction (on node-postgres or the postgres package). */
import { sql, type SQLWrapper } from 'drizzle-orm';
import type { OutboxSignal } from '../signals/signal.ts';
import { type Emitted, OUTBOX_TABLE, outboxRow } from './table.ts';

export type { Emitted } from './table.ts';
export type { OutboxSignal, WireSignal, SignalName } from '../signals/signal.ts';
export { InvalidSignal } from '../signals/prepare.ts';

/** What emit needs of Drizzle: a transaction (`db.transaction(async (tx) => …)`) fits. */
export interface DrizzleLike {
  execute(query: SQLWrapper): PromiseLike<unknown>;
}

/** Writes the signal into the outbox in the transaction `tx`: sent once it commits, never if it rolls back. */
export const emit = async (tx: DrizzleLike, signal: OutboxSignal): Promise<Emitted> => {
  const { values, emitted } = outboxRow(signal);
  const [id, json, key] = values;
  await tx.execute(sql`INSERT INTO ${sql.raw(OUTBOX_TABLE)} (id, signal, instance_key) VALUES (${id}, ${json}::jsonb, ${key})`);
  return emitted;
};
