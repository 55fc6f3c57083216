import { Checkpoint, EventStore, WrongExpectedRevision } from '../../event-store/port';

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

export interface Lease { readonly holder: string; readonly revision: bigint; readonly checkpoint: Checkpoint }

interface LeaseState { holder: string; until: number; checkpoint: Checkpoint; revision: bigint }

const encode = (c: Checkpoint) => (c === 'start' ? 'start' : c.toString());
const decode = (s: unknown): Checkpoint => (s === 'start' || typeof s !== 'string' ? 'start' : BigInt(s));

const current = async (store: EventStore): Promise<LeaseState | undefined> => {
  const [last] = await store.read(RELAY_STREAM, { direction: 'backwards', maxCount: 1 });
  if (!last) return undefined;
  return { holder: String(last.data.holder), until: Number(last.data.until), checkpoint: decode(last.data.checkpoint), revision: last.revision };
};

/** The checkpoint of the relays: signals after it may not have their dispatch started yet. */
export const relayCheckpoint = async (store: EventStore): Promise<Checkpoint> => (await current(store))?.checkpoint ?? 'start';

const write = async (store: EventStore, expected: bigint | 'no_stream', holder: string, until: number, checkpoint: Checkpoint) => {
  const { nextRevision } = await store.append(RELAY_STREAM, [{ type: LEASED, data: { holder, until, checkpoint: encode(checkpoint) }, metadata: {} }], expected);
  if (nextRevision % BigInt(TRUNCATE_EVERY) === 0n) await store.truncateBefore(RELAY_STREAM, nextRevision);
  return { holder, revision: nextRevision, checkpoint };
};

/** Takes the lease for `ttlMs` if it is free, expired or already ours; undefined if another relay holds it. */
export const acquireLease = async (store: EventStore, holder: string, ttlMs: number, now = Date.now()): Promise<Lease | undefined> => {
  const state = await current(store);
  if (state && state.holder !== holder && state.until > now) return undefined;
  try {
    return await write(store, state?.revision ?? 'no_stream', holder, now + ttlMs, state?.checkpoint ?? 'start');
  } catch (e) {
    if (e instanceof WrongExpectedRevision) return undefined;
    throw e;
  }
};

/** Extends the lease and records the checkpoint; undefined when another relay took it meanwhile. */
export const renewLease = async (store: EventStore, lease: Lease, checkpoint: Checkpoint, ttlMs: number, now = Date.now()): Promise<Lease | undefined> => {
  try {
    return await write(store, lease.revision, lease.holder, now + ttlMs, checkpoint);
  } catch (e) {
    if (e instanceof WrongExpectedRevision) return undefined;
    throw e;
  }
};
