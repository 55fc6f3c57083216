/** `@action-triggers/client/knex`: emit inside a Knex transaction. */
import type { OutboxSignal } from '../signals/signal.ts';
import { type Emitted, insertSql, outboxRow } from './table.ts';

export type { Emitted } from './table.ts';
export type { OutboxSignal, WireSignal, SignalName } from '../signals/signal.ts';
export { InvalidSignal } from '../signals/prepare.ts';

/** What emit needs of Knex: a transaction (`knex.transaction(async (trx) => …)`) fits. */
export interface KnexLike {
  raw(sql: string, bindings: readonly unknown[]): PromiseLike<unknown>;
}

const INSERT = insertSql(['?', '?', '?']);

/** Writes the signal into the outbox in the transaction `trx`: sent once it commits, never if it rolls back. */
export const emit = async (trx: KnexLike, signal: OutboxSignal): Promise<Emitted> => {
  const { values, emitted } = outboxRow(signal);
  await trx.raw(INSERT, values);
  return emitted;
};
