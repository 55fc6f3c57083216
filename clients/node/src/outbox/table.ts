import { uuidv7 } from '../ids/uuidv7.ts';
import { instanceKeyOf, prepareSignal } from '../signals/prepare.ts';
import type { OutboxSignal, WireSignal } from '../signals/signal.ts';

/** The outbox table and the channel its trigger notifies (sql/0001_outbox.sql). */
export const OUTBOX_TABLE = 'action_triggers_outbox';
export const OUTBOX_CHANNEL = 'action_triggers_outbox';

/** What `emit` gives back: the signal as it will be sent, and its outbox row. */
export interface Emitted {
  /** The signal's id at the service (`GET /api/signals/<id>`). */
  id: string;
  rowId: string;
  signal: WireSignal;
}

/** One row's values, in the order of the INSERT every library runs: id, signal (JSON text), instance key. */
export const outboxRow = (input: OutboxSignal, now = new Date()): { values: [string, string, string | null]; emitted: Emitted } => {
  const rowId = uuidv7(now.getTime());
  const { signal, json } = prepareSignal(input, rowId, now);
  const key = instanceKeyOf(signal);
  // Keys of two models never share an order.
  const instanceKey = key === undefined ? null : `${signal.app_label}.${signal.model_name}:${key}`;
  return { values: [rowId, json, instanceKey], emitted: { id: signal.id, rowId, signal } };
};

/** The INSERT with positional parameters `$1…$3` (node-postgres, Drizzle) or `?` (Knex). */
export const insertSql = (placeholders: [string, string, string]) =>
  `INSERT INTO ${OUTBOX_TABLE} (id, signal, instance_key) VALUES (${placeholders[0]}, ${placeholders[1]}::jsonb, ${placeholders[2]})`;
