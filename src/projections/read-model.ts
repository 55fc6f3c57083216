import { StoredEvent } from '../event-store/port';
import { MAX_LIST_PAGE_BYTES } from '../kernel/limits';
import { Logger, silentLogger } from '../kernel/logger';
import { TriggerView } from './trigger-view';
import { ListFilter, ListPage } from './trigger-list';
import { startCheckpointer } from '../event-store/sqlite-checkpointer';
import { inodeOf, isCorruption, moveAside, openCheckedFile } from './read-model-file';
import { bind, Queries } from './read-model-tables';
import { SignalIndex } from './signal-index';

export type { ListFilter, ListPage } from './trigger-list';

export interface ReadModel extends SignalIndex {
  /** The resource JSON text and version, or undefined when unknown or deleted. */
  getJson(id: string): { json: string; version: number } | undefined;
  get(id: string): TriggerView | undefined;
  list(filter: ListFilter, limit: number, after: string | undefined): ListPage;
  /** Active triggers for one signal of one content type (the dispatch index). */
  matching(signal: string, appLabel: string, modelName: string): TriggerView[];
  /** Up to `limit` triggers (active or not) with any signal for one content type, by id: why a signal did not match them. */
  watching(appLabel: string, modelName: string, limit: number): WatchingTrigger[];
  /**
   * One read for one signal: the triggers it matches, and of the others watching its content type
   * up to `othersLimit` (+ the matched ones), both as of the same moment.
   */
  forSignal(signal: string, appLabel: string, modelName: string, othersLimit: number): SignalTriggers;
  checkpoint(): bigint | 'start';
  /**
   * Applies a batch in one transaction; events at or before the stored checkpoint are skipped.
   * An event that cannot be applied throws, after the events before it were committed.
   */
  apply(events: readonly StoredEvent[]): bigint | 'start';
  reset(): void;
  /** Why the model cannot be used (its file is damaged or was replaced), or undefined. */
  fault(): string | undefined;
  /**
   * Moves a damaged file aside (if no other process did yet) and opens a fresh one. Until each
   * part has caught up again (`recovered`), its reads answer ReadModelUnavailable (503), never
   * a half-built answer (a 404 for a trigger that exists).
   */
  rebuild(): void;
  /** The triggers are rebuilding from the first event (since `rebuild`). */
  recovering(): boolean;
  /** The triggers have caught up with the store since the rebuild: their reads answer again. */
  recovered(): void;
  /** As `recovering` and `recovered`, for the signal index. */
  signalsRecovering(): boolean;
  signalsRecovered(): void;
  close(): void;
}

type ModelPart = 'triggers' | 'signals';

export interface SignalTriggers {
  matching: TriggerView[];
  watching: WatchingTrigger[];
}

export interface WatchingTrigger {
  id: string;
  version: number;
  active: boolean;
  signals: string[];
}

/** How soon a client may retry a request the read model could not answer (`Retry-After`): a rebuild takes seconds. */
export const READ_MODEL_RETRY_AFTER_SECS = 5;

/** The read model cannot answer now (its file is damaged; a rebuild is under way). */
export class ReadModelUnavailable extends Error {
  constructor(readonly reason: string) {
    super(`the read model is unavailable (${reason}); it is being rebuilt from the event store`);
    this.name = 'ReadModelUnavailable';
  }
}

export interface ReadModelOptions {
  readonly log?: Logger;
  /** A list page stops before this many bytes (tests pass a small one). */
  readonly maxPageBytes?: number;
  /** WAL checkpoints in a thread of their own (src/event-store/sqlite-checkpointer.ts); default true. */
  readonly backgroundCheckpoints?: boolean;
}

/** How stale `fault()`'s answer to "was the file replaced by another process?" may be. */
const REPLACED_CHECK_MS = 200;

/**
 * The trigger read model in its own SQLite file; safe to share between processes. Checked at
 * open; a damaged file found then or later is moved aside and rebuilt (see read-model-file.ts).
 */
export const openReadModel = (file: string, options: ReadModelOptions = {}): ReadModel => {
  const log = options.log ?? silentLogger;
  const maxPageBytes = options.maxPageBytes ?? MAX_LIST_PAGE_BYTES;
  let opened = openCheckedFile(file, log);
  const checkpointer = options.backgroundCheckpoints === false ? undefined : startCheckpointer(file);
  const autoCheckpoints = () => {
    if (checkpointer) opened.db.pragma('wal_autocheckpoint = 0');
  };
  autoCheckpoints();
  let queries = bind(opened.db, maxPageBytes);
  let fault: string | undefined;
  const rebuilding = new Set<ModelPart>();
  // Asked on every write (is the projection sound?): the file's inode is looked up at most every
  // REPLACED_CHECK_MS, not once per request (a stat was ~3 µs of each create).
  let replacedCheckedAt = 0;
  let wasReplaced = false;
  const replaced = () => {
    const now = Date.now();
    if (now - replacedCheckedAt >= REPLACED_CHECK_MS) {
      replacedCheckedAt = now;
      wasReplaced = inodeOf(file) !== opened.ino;
    }
    return wasReplaced;
  };

  // Every use goes through here: SQLite's "damaged" answers become ReadModelUnavailable (503).
  const guard =
    <A extends unknown[], R>(f: (q: Queries) => (...a: A) => R) =>
    (...a: A): R => {
      if (fault !== undefined) throw new ReadModelUnavailable(fault);
      try {
        return f(queries)(...a);
      } catch (e) {
        if (!isCorruption(e)) throw e;
        fault = String((e as Error).message ?? e);
        log.error('read model file is damaged', { file, error: fault });
        throw new ReadModelUnavailable(fault);
      }
    };

  /** A read of a part still rebuilding answers 503, as a damaged file does. */
  const read = <A extends unknown[], R>(part: ModelPart, f: (q: Queries) => (...a: A) => R) => {
    const guarded = guard(f);
    return (...a: A): R => {
      if (rebuilding.has(part)) throw new ReadModelUnavailable(`its ${part} are being rebuilt`);
      return guarded(...a);
    };
  };

  return {
    getJson: read('triggers', (q) => q.getJson),
    get: read('triggers', (q) => q.get),
    list: read('triggers', (q) => q.list),
    matching: read('triggers', (q) => q.matching),
    watching: read('triggers', (q) => q.watching),
    forSignal: read('triggers', (q) => q.forSignal),
    checkpoint: guard((q) => q.checkpoint),
    apply: guard((q) => q.apply),
    reset: guard((q) => q.reset),
    signalCheckpoint: guard((q) => q.signalCheckpoint),
    applySignals: guard((q) => q.applySignals),
    resetSignals: guard((q) => q.resetSignals),
    signalPage: read('signals', (q) => q.signalPage),
    removeSignalsBefore: guard((q) => q.removeSignalsBefore),
    fault: () => fault ?? (replaced() ? 'the read model file was replaced by another process' : undefined),
    rebuild: () => {
      if (fault !== undefined) moveAside(file, opened.ino, log);
      try {
        queries.close();
      } catch {
        /* a damaged file may refuse even this */
      }
      opened = openCheckedFile(file, log);
      autoCheckpoints();
      queries = bind(opened.db, maxPageBytes);
      fault = undefined;
      replacedCheckedAt = 0;
      rebuilding.add('triggers').add('signals');
    },
    recovering: () => rebuilding.has('triggers'),
    recovered: () => {
      rebuilding.delete('triggers');
    },
    signalsRecovering: () => rebuilding.has('signals'),
    signalsRecovered: () => {
      rebuilding.delete('signals');
    },
    close: () => {
      checkpointer?.stop();
      queries.close();
    },
  };
};
