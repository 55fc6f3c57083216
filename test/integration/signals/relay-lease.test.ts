import { UnreadableEvent } from '../../../src/event-store/port';
import { acquireLease, relayCheckpoint, RELAY_STREAM, renewLease } from '../../../src/model/signals/relay-lease';
import { freshStorePerTest } from '../../support/temp-store';

const t = freshStorePerTest();

test('one relay holds the lease until it expires; the checkpoint it renewed with goes to the next holder', async () => {
  const a = await acquireLease(t.store, 'a', 1000, 0);
  expect(a).toMatchObject({ holder: 'a', checkpoint: 'start' });
  expect(await acquireLease(t.store, 'b', 1000, 500)).toBeUndefined();
  const renewed = await renewLease(t.store, a!, 42n, 1000, 600);
  expect(renewed).toMatchObject({ holder: 'a', checkpoint: 42n });
  expect(await relayCheckpoint(t.store)).toBe(42n);
  // The renewal moved the stream on: a renewal from the old revision has lost the lease.
  expect(await renewLease(t.store, a!, 43n, 1000, 700)).toBeUndefined();
  expect(await acquireLease(t.store, 'b', 1000, 1599)).toBeUndefined();
  expect(await acquireLease(t.store, 'b', 1000, 1601)).toMatchObject({ holder: 'b', checkpoint: 42n });
});

test('a lease event of another shape is an UnreadableEvent: no relay starts dispatches on a guessed checkpoint', async () => {
  await t.store.append(
    RELAY_STREAM,
    [{ type: 'RelayLeased', data: { holder: 'a', until: 1, checkpoint: 'twelve' }, metadata: {} }],
    'no_stream',
  );
  await expect(relayCheckpoint(t.store)).rejects.toThrow(UnreadableEvent);
  await expect(acquireLease(t.store, 'b', 1000)).rejects.toThrow(/relay-signals@0 cannot be read/);
});
