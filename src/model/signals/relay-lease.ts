import * as E from 'fp-ts/Either';
import { runCommand } from '../../event-store/command';
import * as t from 'io-ts';
import { Checkpoint, EventStore, NewEvent, UnreadableEvent, WrongExpectedRevision } from '../../event-store/port';

/**
 * Which relay may start dispatches, and from where: the stream `relay-signals`, whose last event
 * names the holder, until when it holds, and the checkpoint (position of the last signal whose
 * dispatch was started). Taking or renewing the lease appends with the expected revision, so
 * of two relays only one can hold it, and a relay that lost it can no longer move the checkpoint.
 * Works the same on every store; with several hosts it assumes their clocks agree to well
 * within the lease time.
 */
export const RELAY_STREAM = 'relay-signals';
const LEASED = 'RelayLeased';
/** Renewals between truncations of the lease stream (it only needs its last event). */
const TRUNCATE_EVERY = 50;

export interface Lease {
  readonly holder: string;
  readonly revision: bigint;
  readonly checkpoint: Checkpoint;
}

interface LeaseState {
  holder: string;
  until: number;
  checkpoint: Checkpoint;
  revision: bigint;
}

const encode = (c: Checkpoint) => (c === 'start' ? 'start' : c.toString());
const decode = (s: string): Checkpoint => (s === 'start' ? 'start' : BigInt(s));

const Leased = t.type({ holder: t.string, until: t.number, checkpoint: t.string });

/** The lease as its last event says; one of another shape is an UnreadableEvent, never guessed at. */
const current = async (store: EventStore): Promise<LeaseState | undefined> => {
  const [last] = await store.read(RELAY_STREAM, { direction: 'backwards', maxCount: 1 });
  if (!last) return undefined;
  const lease = Leased.decode(last.data);
  if (last.type !== LEASED || lease._tag === 'Left' || !/^(start|\d+)$/.test(lease.right.checkpoint))
    throw new UnreadableEvent(last.streamId, last.revision, `not a ${LEASED} event of the known shape`);
  return { holder: lease.right.holder, until: lease.right.until, checkpoint: decode(lease.right.checkpoint), revision: last.revision };
};

/** The checkpoint of the relays: signals after it may not have their dispatch started yet. */
export const relayCheckpoint = async (store: EventStore): Promise<Checkpoint> => (await current(store))?.checkpoint ?? 'start';

const leased = (holder: string, until: number, checkpoint: Checkpoint): NewEvent => ({
  type: LEASED,
  data: { holder, until, checkpoint: encode(checkpoint) },
  metadata: {},
});

/** The lease stream only needs its last event. */
const truncated = async (store: EventStore, nextRevision: bigint) => {
  if (nextRevision % BigInt(TRUNCATE_EVERY) === 0n) await store.truncateBefore(RELAY_STREAM, nextRevision);
};

/** Takes the lease for `ttlMs` if it is free, expired or already ours; undefined if another relay holds it. */
export const acquireLease = async (store: EventStore, holder: string, ttlMs: number, now = Date.now()): Promise<Lease | undefined> => {
  const taken = await runCommand(store, RELAY_STREAM, {
    load: async () => {
      const state = await current(store);
      return { state, revision: state?.revision ?? ('no_stream' as const) };
    },
    decide: ({ state }) =>
      state && state.holder !== holder && state.until > now
        ? E.left(undefined)
        : E.right({ events: [leased(holder, now + ttlMs, state?.checkpoint ?? 'start')], result: state?.checkpoint ?? 'start' }),
    retry: async () => false, // another relay took it first
    lost: () => undefined,
  });
  if (E.isLeft(taken) || !taken.right.appended) return undefined;
  await truncated(store, taken.right.appended.nextRevision);
  return { holder, revision: taken.right.appended.nextRevision, checkpoint: taken.right.result };
};

/** When the lease ends unless its holder renews it (ms since the epoch), or undefined when none was taken. */
export const leaseEnds = async (store: EventStore): Promise<number | undefined> => (await current(store))?.until;

/** Extends the lease and records the checkpoint; undefined when another relay took it meanwhile. */
export const renewLease = async (
  store: EventStore,
  lease: Lease,
  checkpoint: Checkpoint,
  ttlMs: number,
  now = Date.now(),
): Promise<Lease | undefined> => {
  try {
    const { nextRevision } = await store.append(RELAY_STREAM, [leased(lease.holder, now + ttlMs, checkpoint)], lease.revision);
    await truncated(store, nextRevision);
    return { holder: lease.holder, revision: nextRevision, checkpoint };
  } catch (e) {
    if (e instanceof WrongExpectedRevision) return undefined;
    throw e;
  }
};
