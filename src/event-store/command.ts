import * as E from 'fp-ts/Either';
import { AppendResult, EventStore, ExpectedRevision, NewEvent, StoredEvent, WrongExpectedRevision } from './port';

/**
 * The one read-decide-append loop of every stream kind (a trigger, its breaker, a signal). It
 * knows no domain: a kind says how its stored events read back and fold into a state.
 */
export interface StreamKind<S, Ev> {
  readonly initial: S;
  readonly evolve: (state: S, event: Ev) => S;
  /** Decodes a stored event, older shapes upcast; throws UnreadableEvent for one it cannot read. */
  readonly read: (stored: StoredEvent) => Ev;
}

/** A stream's state, and the revision a write after what was read expects. */
export interface Folded<S> {
  readonly state: S;
  readonly revision: ExpectedRevision;
}

/** Reads the whole stream and folds it (kinds with snapshots load their own way). */
export const foldStream = async <S, Ev>(store: EventStore, streamId: string, kind: StreamKind<S, Ev>): Promise<Folded<S>> => {
  const stored = await store.read(streamId);
  const state = stored.reduce((s, e) => kind.evolve(s, kind.read(e)), kind.initial);
  return { state, revision: stored.at(-1)?.revision ?? 'no_stream' };
};

/** What a decision appends, and what the command answers with. */
export interface Decision<R> {
  readonly events: readonly NewEvent[];
  readonly result: R;
}

export interface Command<F extends Folded<unknown>, L, R> {
  /** The stream as it is now; `attempt` counts from 1 (a new stream may skip the first read). */
  readonly load: (attempt: number) => Promise<F>;
  /** What to append on that state; Left refuses and nothing is appended. */
  readonly decide: (loaded: F) => E.Either<L, Decision<R>> | Promise<E.Either<L, Decision<R>>>;
  /**
   * Another writer appended first: resolves true to read and decide again (after its own
   * pause), false to give up with `lost()`.
   */
  readonly retry: (attempt: number) => Promise<boolean>;
  readonly lost: () => L;
}

/**
 * The pause after a lost race: random (racing writers would otherwise collide again in the same
 * commit), growing with each attempt, at most `capMs`.
 */
export const racePause = (attempt: number, capMs = Infinity) =>
  new Promise((r) => setTimeout(r, Math.random() * Math.min(capMs, 2 ** attempt)));

/** The decision's result, the state it was made on, and where its events went (none appended: undefined). */
export interface Done<F, R> {
  readonly result: R;
  readonly loaded: F;
  readonly appended: AppendResult | undefined;
}

/**
 * Loads, decides, appends expecting the revision it loaded; a lost race goes round again as
 * `retry` says. Any other store failure is thrown.
 */
export const runCommand = async <F extends Folded<unknown>, L, R>(
  store: EventStore,
  streamId: string,
  command: Command<F, L, R>,
): Promise<E.Either<L, Done<F, R>>> => {
  for (let attempt = 1; ; attempt++) {
    const loaded = await command.load(attempt);
    const decided = await command.decide(loaded);
    if (E.isLeft(decided)) return decided;
    const { events, result } = decided.right;
    if (events.length === 0) return E.right({ result, loaded, appended: undefined });
    try {
      return E.right({ result, loaded, appended: await store.append(streamId, events, loaded.revision) });
    } catch (e) {
      if (!(e instanceof WrongExpectedRevision)) throw e;
      if (!(await command.retry(attempt))) return E.left(command.lost());
    }
  }
};
