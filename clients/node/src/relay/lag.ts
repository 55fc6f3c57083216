import type { Queryable } from '../outbox/db.ts';
import { OUTBOX_TABLE } from '../outbox/table.ts';

/** How far behind the outbox is. */
export interface OutboxLag {
  /** Rows waiting to be sent (those being sent included). */
  waiting: number;
  /** The age of the oldest waiting row, in milliseconds; null when none waits. */
  oldestAgeMs: number | null;
  /** Rows the service refused, kept with their reason (`last_error`). */
  setAside: number;
}

export const outboxLag = async (db: Queryable): Promise<OutboxLag> => {
  const { rows } = await db.query(`
    SELECT count(*) FILTER (WHERE set_aside_at IS NULL)::int AS waiting,
           (extract(epoch FROM clock_timestamp() - min(created_at) FILTER (WHERE set_aside_at IS NULL)) * 1000)::float8 AS oldest_ms,
           count(*) FILTER (WHERE set_aside_at IS NOT NULL)::int AS set_aside
    FROM ${OUTBOX_TABLE}`);
  const r = rows[0] as { waiting: number; oldest_ms: number | null; set_aside: number };
  return { waiting: r.waiting, oldestAgeMs: r.oldest_ms === null ? null : Math.max(0, Math.round(r.oldest_ms)), setAside: r.set_aside };
};
