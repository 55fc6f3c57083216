import { claimRows, type ClaimedRow, deleteSent, releaseRows, renewLease, setAside } from './claim.ts';
import { takeBatch } from './batches.ts';
import { postRows } from './post.ts';
import { unsendableReason } from './unsendable.ts';
import type { Settings } from './options.ts';

/** What one pass came to: rows claimed, sent, set aside; `unavailable` when the service could not take them. */
export interface PassOutcome {
  claimed: number;
  sent: number;
  setAside: number;
  unavailable?: { reason: string; retryAfterMs?: number };
}

/** Room enough in a lease for one more request (and the writes after it). */
const MARGIN_MS = 2_000;

/**
 * One pass: claim rows (leased), send them in batches, settle each (deleted when accepted, set
 * aside when refused), free the rest when the service is away. A refusal is all or nothing: the
 * rows it names are set aside and the others sent again at once; when it names none, the rows
 * are sent one by one, so only a row refused alone is set aside.
 */
export const runPass = async (s: Settings, owner: string): Promise<PassOutcome> => {
  const rows = await claimRows(s.pool, owner, s.batchSize, s.batchSize * 4, s.leaseMs);
  const outcome: PassOutcome = { claimed: rows.length, sent: 0, setAside: 0 };
  let leaseEnds = Date.now() + s.leaseMs;
  const queue: ClaimedRow[] = [];
  for (const row of rows) {
    const unsendable = unsendableReason(row);
    if (unsendable === undefined) queue.push(row);
    else {
      await setAside(s.pool, owner, row, unsendable);
      s.log({ level: 'warn', message: 'signal cannot be sent: set aside', signal_id: row.signalId, reason: unsendable });
      outcome.setAside++;
    }
  }
  const alone = new Set<string>();
  while (queue.length > 0) {
    if (Date.now() + s.timeoutMs + MARGIN_MS > leaseEnds) {
      if ((await renewLease(s.pool, owner, queue, s.leaseMs)) < queue.length) return outcome; // another relay took them over
      leaseEnds = Date.now() + s.leaseMs;
    }
    const batch = takeBatch(queue, s.batchSize, s.maxBatchBytes, alone);
    const answer = await postRows(s, batch);
    if (answer.kind === 'accepted') {
      await deleteSent(s.pool, owner, batch);
      outcome.sent += batch.length;
    } else if (answer.kind === 'unavailable') {
      await releaseRows(s.pool, owner, [...batch, ...queue], answer.reason);
      return {
        ...outcome,
        unavailable: { reason: answer.reason, ...(answer.retryAfterMs === undefined ? {} : { retryAfterMs: answer.retryAfterMs }) },
      };
    } else if (answer.items.size > 0) {
      for (const [i, reason] of answer.items) {
        await setAside(s.pool, owner, batch[i]!, reason);
        s.log({ level: 'warn', message: 'signal refused by the service: set aside', signal_id: batch[i]!.signalId, reason });
        outcome.setAside++;
      }
      queue.unshift(...batch.filter((_, i) => !answer.items.has(i)));
    } else if (batch.length > 1) {
      for (const row of batch) alone.add(row.seq);
      queue.unshift(...batch);
    } else {
      await setAside(s.pool, owner, batch[0]!, answer.reason);
      s.log({ level: 'warn', message: 'signal refused by the service: set aside', signal_id: batch[0]!.signalId, reason: answer.reason });
      outcome.setAside++;
    }
  }
  return outcome;
};
