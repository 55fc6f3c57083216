/** An event row as the store keeps it: data and metadata as their JSON text. */
export interface EventRow {
  position: number | bigint;
  stream_id: string;
  revision: number | bigint;
  type: string;
  data: string;
  metadata: string;
}

/** The category column's rule: the stream id before its first `-` (empty without one). */
export const categoryOf = (streamId: string) => {
  const dash = streamId.indexOf('-');
  return dash < 0 ? '' : streamId.slice(0, dash);
};

/**
 * What a process keeps for its subscriptions: at most this many rows and this many characters
 * of JSON (a trigger definition may be 256 KiB; the rows must not hold the writes of a burst).
 */
const KEPT_ROWS = 4096;
const KEPT_CHARS = 4 * 1024 * 1024;

/**
 * The rows this process committed last, in position order. A subscription that follows this
 * process's own appends takes them from here instead of reading them back from the file (a read
 * per batch cost the API's main thread ~10 µs of every trigger created). Only a run of positions
 * with none missing is taken: a position not here was committed by another process (or earlier),
 * and is read from the file, as are the rows after it.
 */
export const recentAppends = () => {
  let rows: Array<EventRow & { position: bigint }> = [];
  let chars = 0;
  const sizeOf = (r: EventRow) => r.data.length + r.metadata.length;
  /** The index of the row at `position` (rows are in position order), or -1. */
  const indexOf = (position: bigint) => {
    let lo = 0;
    let hi = rows.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const p = rows[mid]!.position;
      if (p === position) return mid;
      if (p < position) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  };
  return {
    add: (committed: ReadonlyArray<EventRow & { position: bigint }>) => {
      for (const r of committed) {
        rows.push(r);
        chars += sizeOf(r);
      }
      // The oldest go first; a run that lost its start is simply read from the file.
      let drop = 0;
      while (drop < rows.length && (rows.length - drop > KEPT_ROWS || chars > KEPT_CHARS)) chars -= sizeOf(rows[drop++]!);
      if (drop > 0) rows = rows.slice(drop);
    },
    /**
     * The rows of `category` right after `position` while every position from `position + 1`
     * on is here, at most `limit`, each passed to `take` (false: the batch is full, `cut`).
     * Undefined when none of `category` is in that run: the caller reads the file.
     */
    after: (category: string, position: bigint, limit: number, take: (row: EventRow) => boolean) => {
      let i = indexOf(position + 1n);
      if (i < 0) return undefined;
      const found: EventRow[] = [];
      let cut = false;
      for (let expected = position + 1n; i < rows.length && found.length < limit; i++, expected++) {
        const row = rows[i]!;
        if (row.position !== expected) break;
        if (categoryOf(row.stream_id) !== category) continue;
        if (!take(row)) {
          cut = true;
          break;
        }
        found.push(row);
      }
      return found.length === 0 ? undefined : { rows: found, cut };
    },
  };
};
