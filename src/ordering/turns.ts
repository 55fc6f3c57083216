/**
 * Deliveries in order per instance, kept in our own store: the stream of one trigger's order for
 * one instance (its id is the order's id, `ordered-<trigger>-<key>`) holds the dispatches queued
 * in it, in the order the relay read their signals, and whose turn ended. Pure: what the events
 * say (turn-store.ts reads and writes them).
 */

/** A dispatch in an order: its workflow and its signal's store position (the order's key). */
export interface QueuedDispatch {
  workflowId: string;
  position: string;
}

/** The relay queued the dispatch (again after a take-over: the first one counts). */
export const QUEUED = 'DispatchQueued';
/** The dispatch's actions of the trigger ended (delivered or failed for good), or it no longer runs: the next goes. */
export const TURN_ENDED = 'TurnEnded';
/** The dispatch never started (Temporal refused it for good): it never takes its turn. */
export const SKIPPED = 'DispatchSkipped';

/** An event of an order's stream, as read. */
export interface TurnEvent {
  type: string;
  data: Record<string, unknown>;
  revision: bigint;
}

export interface TurnState {
  /** Dispatches whose turn has not ended, by position: the first one's turn is now. */
  pending: Array<QueuedDispatch & { revision: bigint }>;
  /** The revision before which nothing is needed any more (the stream may be cut there), if any. */
  cutBefore?: bigint;
}

const entryOf = (data: Record<string, unknown>): QueuedDispatch | undefined =>
  typeof data.workflowId === 'string' && typeof data.position === 'string' && /^\d+$/.test(data.position)
    ? { workflowId: data.workflowId, position: data.position }
    : undefined;

/**
 * Only the dispatch whose turn it is ends it, so every position up to the highest ended one is
 * done: a dispatch queued again after its record was cut is still known as done.
 */
export const turnStateOf = (events: readonly TurnEvent[]): TurnState => {
  let endedThrough = -1n;
  let lastEnded: bigint | undefined;
  const skipped = new Set<string>();
  for (const e of events) {
    const entry = entryOf(e.data);
    if (!entry) continue;
    if (e.type === TURN_ENDED && BigInt(entry.position) > endedThrough) {
      endedThrough = BigInt(entry.position);
      lastEnded = e.revision;
    }
    if (e.type === SKIPPED) skipped.add(entry.workflowId);
  }
  const seen = new Set<string>();
  const pending: TurnState['pending'] = [];
  for (const e of events) {
    const entry = e.type === QUEUED ? entryOf(e.data) : undefined;
    if (!entry || seen.has(entry.workflowId) || skipped.has(entry.workflowId) || BigInt(entry.position) <= endedThrough) continue;
    seen.add(entry.workflowId);
    pending.push({ ...entry, revision: e.revision });
  }
  pending.sort((a, b) => (BigInt(a.position) < BigInt(b.position) ? -1 : BigInt(a.position) > BigInt(b.position) ? 1 : 0));
  // Keep every pending entry, and the last end (it says how far the order got).
  const firstPending = pending.reduce<bigint | undefined>(
    (min, p) => (min === undefined || p.revision < min ? p.revision : min),
    undefined,
  );
  const cuts = [firstPending, lastEnded].filter((r): r is bigint => r !== undefined);
  return { pending, ...(cuts.length > 0 ? { cutBefore: cuts.reduce((a, b) => (a < b ? a : b)) } : {}) };
};

/** Whether nothing queued before the dispatch is still waiting or running: its turn. */
export const isTurnOf = (state: TurnState, d: QueuedDispatch) => !state.pending.some((p) => BigInt(p.position) < BigInt(d.position));
