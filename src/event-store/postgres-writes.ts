import { AppendOutcome, SerializedAppend } from './group-commit';
import { PgEvents } from './postgres-reads';

/** A group of appends in one call of the schema's function: one round trip, one transaction. */
export const appendGroup = async ({ query, schema }: PgEvents, group: SerializedAppend[]): Promise<AppendOutcome[]> => {
  const events = group.flatMap((a) => a.events);
  const result = await query((p) =>
    p.query<{ ok: boolean; next_revision: string | null; last_position: string | null; actual: string | null }>(
      `SELECT * FROM ${schema}.append_group($1, $2, $3, $4, $5, $6, $7)`,
      [
        group.map((a) => a.streamId),
        group.map((a) => String(a.expected)),
        group.map((a) => a.events.length),
        events.map((e) => e.type),
        events.map((e) => e.data),
        events.map((e) => e.metadata),
        Date.now(),
      ],
    ),
  );
  return result.rows.map((r, i) =>
    r.ok
      ? { ok: true, nextRevision: BigInt(r.next_revision!), position: BigInt(r.last_position ?? 0) }
      : {
          ok: false,
          streamId: group[i]!.streamId,
          expected: group[i]!.expected,
          actual: r.actual === null ? 'no_stream' : BigInt(r.actual),
        },
  );
};

/** Oldest first, stopping at the first event recorded since `before`: work in proportion to what goes. */
export const removeRecordedBefore = async ({ query, schema }: PgEvents, category: string, before: Date, through: bigint, max: number) => {
  const { rows } = await query((p) =>
    p.query<{ removed: string }>(`SELECT ${schema}.remove_recorded_before($1, $2, $3, $4) AS removed`, [
      category,
      before.getTime(),
      through.toString(),
      max,
    ]),
  );
  return Number(rows[0]!.removed);
};

export const truncateBefore = async ({ query, schema }: PgEvents, streamId: string, revision: bigint) => {
  await query((p) => p.query(`DELETE FROM ${schema}.events WHERE stream_id = $1 AND revision < $2`, [streamId, revision.toString()]));
};
