/**
 * `@action-triggers/client/outbox`: signals written in the caller's PostgreSQL transaction
 * (node-postgres; Knex and Drizzle have their own entries), the table's migration, and the relay
 * that sends them to the service.
 */
export { emit } from './emit.ts';
export { migrate, MIGRATIONS } from './migrations.ts';
export { OUTBOX_CHANNEL, OUTBOX_TABLE } from './table.ts';
export type { Emitted } from './table.ts';
export type { ListeningClient, PoolLike, Queryable } from './db.ts';
export { InvalidSignal } from '../signals/prepare.ts';
export type { OutboxSignal, SignalName, WireSignal } from '../signals/signal.ts';
export { startRelay } from '../relay/start.ts';
export type { Relay } from '../relay/start.ts';
export type { RelayEvent, RelayOptions } from '../relay/options.ts';
export { outboxLag } from '../relay/lag.ts';
export type { OutboxLag } from '../relay/lag.ts';
