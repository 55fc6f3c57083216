import type { Queryable } from '../outbox/db.ts';
import { OUTBOX_TABLE as T } from '../outbox/table.ts';

/** A claimed row: its signal as stored (JSON text, sent as it is) and the signal's id. */
export interface ClaimedRow {
  seq: string;
  signalId: string | null;
  json: string;
  bytes: number;
}

const CLAIM = `
WITH heads AS (
  SELECT o.seq, o.instance_key FROM ${T} o
  WHERE o.set_aside_at IS NULL
    AND (o.leased_until IS NULL OR o.leased_until < clock_timestamp())
    AND (o.instance_key IS NULL OR NOT EXISTS (
      SELECT 1 FROM ${T} e WHERE e.instance_key = o.instance_key AND e.seq < o.seq AND e.set_aside_at IS NULL))
  ORDER BY o.seq
  LIMIT $1
  FOR UPDATE SKIP LOCKED
), claimed AS (
  SELECT o.seq FROM ${T} o
  WHERE o.set_aside_at IS NULL
    AND (o.leased_until IS NULL OR o.leased_until < clock_timestamp())
    AND (o.seq IN (SELECT seq FROM heads) OR o.instance_key IN (SELECT instance_key FROM heads WHERE instance_key IS NOT NULL))
  ORDER BY o.seq
  LIMIT $2
  FOR UPDATE
)
UPDATE ${T} t SET leased_until = clock_timestamp() + $3 * interval '1 millisecond', lease_owner = $4
FROM claimed WHERE t.seq = claimed.seq
RETURNING t.seq::text AS seq, t.signal->>'id' AS signal_id, t.signal::text AS json`;

/**
 * Leases the next rows to send, in one statement. First the heads: rows with no earlier row of
 * their instance still to send, skipping those another relay is claiming at this moment (SKIP
 * LOCKED) or holds (its lease). Holding a head is holding its instance: for the other relays
 * its later rows are not heads while it is there. Then those instances' later rows, a prefix of
 * each, up to `maxRows`. Rows come back in seq order.
 */
export const claimRows = async (db: Queryable, owner: string, heads: number, maxRows: number, leaseMs: number): Promise<ClaimedRow[]> => {
  const { rows } = await db.query(CLAIM, [heads, maxRows, leaseMs, owner]);
  return (rows as Array<{ seq: string; signal_id: string | null; json: string }>)
    .map((r) => ({ seq: r.seq, signalId: r.signal_id, json: r.json, bytes: Buffer.byteLength(r.json) }))
    .sort((a, b) => (BigInt(a.seq) < BigInt(b.seq) ? -1 : 1));
};

const seqs = (rows: readonly ClaimedRow[]) => rows.map((r) => r.seq);

/** Sent: the service accepted them (a duplicate too: it has them). Only rows still this relay's. */
export const deleteSent = (db: Queryable, owner: string, rows: readonly ClaimedRow[]) =>
  db.query(`DELETE FROM ${T} WHERE seq = ANY($1::bigint[]) AND lease_owner = $2`, [seqs(rows), owner]);

/** Refused by the service: kept with the reason, never sent again, no longer holding its instance back. */
export const setAside = (db: Queryable, owner: string, row: ClaimedRow, reason: string) =>
  db.query(
    `UPDATE ${T} SET set_aside_at = clock_timestamp(), last_error = $3, leased_until = NULL, lease_owner = NULL WHERE seq = $1 AND lease_owner = $2`,
    [row.seq, owner, reason.slice(0, 2000)],
  );

/** Not settled (the service away): free again for the next try, the attempt counted. */
export const releaseRows = (db: Queryable, owner: string, rows: readonly ClaimedRow[], reason: string) =>
  db.query(
    `UPDATE ${T} SET attempts = attempts + 1, last_error = $3, leased_until = NULL, lease_owner = NULL WHERE seq = ANY($1::bigint[]) AND lease_owner = $2`,
    [seqs(rows), owner, reason.slice(0, 2000)],
  );

/** Holds the rows longer; how many are still this relay's. */
export const renewLease = async (db: Queryable, owner: string, rows: readonly ClaimedRow[], leaseMs: number) =>
  (
    await db.query(
      `UPDATE ${T} SET leased_until = clock_timestamp() + $3 * interval '1 millisecond' WHERE seq = ANY($1::bigint[]) AND lease_owner = $2`,
      [seqs(rows), owner, leaseMs],
    )
  ).rowCount ?? 0;
