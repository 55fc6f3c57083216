import { Checkpoint, EventStore, WrongExpectedRevision } from '../../event-store/port';

/**
 * Which process raises and sends the alerts, and what it has done so far: the stream
 * `alerting-lease`, whose last event names the holder, until when it holds, and its saved
 * progress (how far it followed the breakers and the triggers, the actions it watches, each
 * sink's cursor). Every write expects the revision it read, so one process at a time holds it,
 * and a process that lost it can no longer save.
 */
export const ALERTING_STREAM = 'alerting-lease';
const HELD = 'AlertingHeld';
/** Saves between truncations (only the last event is needed). */
const TRUNCATE_EVERY = 50;

export interface Held<S> {
  readonly holder: string;
  readonly until: number;
  readonly revision: bigint;
  readonly progress: S | undefined;
}

const lastOf = async <S>(store: EventStore): Promise<Held<S> | undefined> => {
  const [last] = await store.read(ALERTING_STREAM, { direction: 'backwards', maxCount: 1 });
  if (!last || last.type !== HELD) return undefined;
  const d = last.data as { holder?: unknown; until?: unknown; progress?: S };
  return { holder: String(d.holder), until: Number(d.until), revision: last.revision, progress: d.progress };
};

const write = async <S>(
  store: EventStore,
  held: Omit<Held<S>, 'revision'>,
  expected: bigint | 'no_stream',
): Promise<Held<S> | undefined> => {
  try {
    const { nextRevision } = await store.append(
      ALERTING_STREAM,
      [{ type: HELD, data: { holder: held.holder, until: held.until, progress: held.progress }, metadata: {} }],
      expected,
    );
    if (nextRevision % BigInt(TRUNCATE_EVERY) === 0n) await store.truncateBefore(ALERTING_STREAM, nextRevision);
    return { ...held, revision: nextRevision };
  } catch (e) {
    if (e instanceof WrongExpectedRevision) return undefined;
    throw e;
  }
};

/** Takes the lease if it is free, ended or already ours, keeping the progress saved; undefined while another process holds it. */
export const takeAlerting = async <S>(store: EventStore, holder: string, ttlMs: number, now = Date.now()): Promise<Held<S> | undefined> => {
  const last = await lastOf<S>(store);
  if (last && last.holder !== holder && last.until > now) return undefined;
  return write(store, { holder, until: now + ttlMs, progress: last?.progress }, last?.revision ?? 'no_stream');
};

/** Extends the lease and saves the progress; undefined when another process took it meanwhile. `ttlMs` 0 lets it go. */
export const saveAlerting = <S>(store: EventStore, held: Held<S>, progress: S, ttlMs: number, now = Date.now()) =>
  write(store, { holder: held.holder, until: now + ttlMs, progress }, held.revision);

/** When the lease ends unless renewed (ms since the epoch); undefined when none was taken. */
export const alertingEnds = async (store: EventStore) => (await lastOf(store))?.until;

/**
 * How far the alerts followed the breakers' streams: the breaker truncates none of their events
 * after it (the alerts still have to read them). Undefined when no process has raised alerts on
 * this store yet.
 */
export const breakersFollowedTo = async (store: EventStore): Promise<Checkpoint | undefined> => {
  const saved = (await lastOf<{ breakers?: string }>(store))?.progress?.breakers;
  if (saved === undefined) return undefined;
  return saved === 'start' ? 'start' : BigInt(saved);
};
