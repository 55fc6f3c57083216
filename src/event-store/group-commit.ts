import { AppendResult, ExpectedRevision, NewEvent, StoreUnavailable, WrongExpectedRevision } from './port';

/** One commit takes queued appends up to this much JSON (at least one append). */
export const GROUP_MAX_CHARS = 16 * 1024 * 1024;

/** How many of the queued appends (their JSON sizes, oldest first) the next commit takes. */
export const groupSize = (sizes: readonly number[], max = GROUP_MAX_CHARS) => {
  let total = 0;
  let n = 0;
  while (n < sizes.length && (n === 0 || total + sizes[n]! <= max)) total += sizes[n++]!;
  return n;
};

/** An append as a store's commit takes it: data and metadata already JSON (a string clones and sends cheaply). */
export interface SerializedAppend {
  streamId: string;
  events: { type: string; data: string; metadata: string }[];
  expected: ExpectedRevision;
}

/** What one append of a group came to; a stale expected revision is an answer, not an error. */
export type AppendOutcome =
  | { ok: true; nextRevision: bigint; position: bigint }
  | { ok: false; streamId: string; expected: ExpectedRevision; actual: bigint | 'no_stream' };

export const serialized = (streamId: string, events: readonly NewEvent[], expected: ExpectedRevision): SerializedAppend => ({
  streamId,
  expected,
  events: events.map((e) => ({ type: e.type, data: JSON.stringify(e.data), metadata: JSON.stringify(e.metadata) })),
});

/**
 * Group commit: the appends made while a store commits the last group go together in the next
 * one (one transaction, one fsync). `commit` runs each append of a group on its own, so a stale
 * expected revision fails only its own append; an error fails the whole group (and with
 * `failQueued`, the store being unavailable fails the appends queued behind it too). `committed` runs
 * after each group that committed (subscriptions wake), with the group and its outcomes.
 */
export const groupCommitter = (
  commit: (group: SerializedAppend[]) => Promise<AppendOutcome[]>,
  committed: (group: readonly SerializedAppend[], outcomes: readonly AppendOutcome[] | undefined) => void,
  maxChars = GROUP_MAX_CHARS,
  /** Whether a group failing as unavailable fails the appends queued behind it (a store on a server). */
  failQueued = false,
) => {
  interface Pending {
    append: SerializedAppend;
    chars: number;
    resolve: (r: AppendResult) => void;
    reject: (e: unknown) => void;
  }
  const queue: Pending[] = [];
  let committing: Promise<void> | undefined;
  const commitGroup = async () => {
    const group = queue.splice(
      0,
      groupSize(
        queue.map((p) => p.chars),
        maxChars,
      ),
    );
    const appends = group.map((p) => p.append);
    let outcomes: AppendOutcome[] | undefined;
    try {
      outcomes = await commit(appends);
      outcomes.forEach((o, i) =>
        o.ok
          ? group[i]!.resolve({ nextRevision: o.nextRevision, position: o.position })
          : group[i]!.reject(new WrongExpectedRevision(o.streamId, o.expected, o.actual)),
      );
    } catch (e) {
      group.forEach((p) => p.reject(e));
      // The store's server is away: the appends that queued meanwhile have waited as long as this
      // group did, and would wait as long again for the same answer. They get it now.
      if (failQueued && e instanceof StoreUnavailable) queue.splice(0).forEach((p) => p.reject(e));
    }
    committed(appends, outcomes);
  };
  // One group at a time, oldest first: a process's appends commit in the order they were made.
  const commitQueued = async () => {
    try {
      while (queue.length > 0) await commitGroup();
    } finally {
      committing = undefined;
    }
  };
  return {
    append: (streamId: string, events: readonly NewEvent[], expected: ExpectedRevision) =>
      new Promise<AppendResult>((resolve, reject) => {
        const append = serialized(streamId, events, expected);
        queue.push({ append, chars: append.events.reduce((n, e) => n + e.data.length + e.metadata.length, 0), resolve, reject });
        // The first append of a turn waits for the turn's others (setImmediate) to share its commit.
        committing ??= new Promise<void>((r) => setImmediate(r)).then(commitQueued);
      }),
    /** Resolves once every queued append has been committed or failed. */
    drained: async () => {
      await committing;
    },
  };
};
