import { boundedPage } from '../kernel/bounded-page';
import { Checkpoint, ReadRange, StoredEvent } from './port';
import { guarded } from './postgres-connection';
import { COLUMNS, SqlEventRow, toStored } from './stored-rows';

/** The store's tables on the server: the schema they live in, and the guarded way to query them. */
export interface PgEvents {
  readonly query: ReturnType<typeof guarded>;
  readonly schema: string;
}

/** A row as pg returns it: BIGINT columns as strings. */
interface Row extends SqlEventRow {
  position: string;
  revision: string;
}

const positionOf = (c: Checkpoint) => (c === 'start' ? '0' : c.toString());

/** The events of one stream, or the part `range` names. */
export const readStream = async ({ query, schema }: PgEvents, streamId: string, range?: ReadRange) => {
  const backwards = range?.direction === 'backwards';
  const from = range?.fromRevision ?? (backwards ? BigInt(Number.MAX_SAFE_INTEGER) : 0n);
  const rows = (
    await query((p) =>
      p.query<Row>(
        `SELECT ${COLUMNS} FROM ${schema}.events WHERE stream_id = $1 AND revision ${backwards ? '<=' : '>='} $2
         ORDER BY revision ${backwards ? 'DESC' : ''} LIMIT $3`,
        [streamId, from.toString(), range?.maxCount ?? null],
      ),
    )
  ).rows;
  return rows.map(toStored);
};

export const headPosition = async ({ query, schema }: PgEvents, category: string): Promise<Checkpoint> => {
  const { rows } = await query((p) =>
    p.query<{ p: string | null }>(`SELECT max(position) AS p FROM ${schema}.events WHERE category = $1`, [category]),
  );
  return rows[0]?.p == null ? 'start' : BigInt(rows[0].p);
};

/** Up to `limit` events of the category after `after`, in position order. */
export const eventsAfter = async ({ query, schema }: PgEvents, category: string, after: Checkpoint, limit: number) =>
  (
    await query((p) =>
      p.query<Row>(`SELECT ${COLUMNS} FROM ${schema}.events WHERE category = $1 AND position > $2 ORDER BY position LIMIT $3`, [
        category,
        positionOf(after),
        limit,
      ]),
    )
  ).rows.map(toStored);

/**
 * A subscription's batch: the server stops once the events' data pass `maxBytes` (so a backlog
 * of large definitions is not sent whole), and the page takes exactly what fits.
 */
export const eventsAfterWithin = async ({ query, schema }: PgEvents, category: string, after: bigint, limit: number, maxBytes: number) => {
  const rows = (
    await query((p) =>
      p.query<Row & { before: string; total: string }>(
        `SELECT * FROM (
         SELECT ${COLUMNS}, sum(octet_length(data) + 1) OVER (ORDER BY position) - octet_length(data) - 1 AS before, count(*) OVER () AS total
         FROM (SELECT * FROM ${schema}.events WHERE category = $1 AND position > $2 ORDER BY position LIMIT $3) AS next
       ) AS sized WHERE before <= $4 ORDER BY position`,
        [category, after.toString(), limit, maxBytes],
      ),
    )
  ).rows;
  const events: StoredEvent[] = [];
  const fit = boundedPage(maxBytes);
  for (const row of rows) {
    if (!fit.add(row.data)) return { events, cut: true };
    events.push(toStored(row));
  }
  return { events, cut: rows.length < Number(rows[0]?.total ?? 0) };
};

/** How many events of the category follow `from`, counted to `cap`. */
export const countAfter = async ({ query, schema }: PgEvents, category: string, from: Checkpoint, cap: number) => {
  const { rows } = await query((p) =>
    p.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM ${schema}.events WHERE category = $1 AND position > $2 LIMIT $3) AS after`,
      [category, positionOf(from), cap],
    ),
  );
  return rows[0]!.n;
};
