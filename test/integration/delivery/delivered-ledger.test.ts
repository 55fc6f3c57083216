import { createDeliveredLedger } from '../../../src/delivery/delivered-ledger';
import { UnreadableEvent } from '../../../src/event-store/port';
import { freshStorePerTest } from '../../support/temp-store';
import { silentLogger } from '../../../src/kernel/logger';

const t = freshStorePerTest();

test('a recorded delivery is found with its receipt; another delivery of the same dispatch is not', async () => {
  const ledger = createDeliveredLedger(t.store, silentLogger);
  await ledger.record('signal-s1', 's1.t.w0', { statusCode: 204, attempt: 1, warnings: ['instance.missing is missing'] });
  expect(await ledger.find('signal-s1', 's1.t.w0')).toEqual({ statusCode: 204, attempt: 1, warnings: ['instance.missing is missing'] });
  expect(await ledger.find('signal-s1', 's1.t.w1')).toBeUndefined();
  expect(await ledger.find('signal-s2', 's1.t.w0')).toBeUndefined();
});

test('a record of another shape is an UnreadableEvent: the attempt fails rather than answer with a guess', async () => {
  await t.store.append(
    'delivered-signal-s1',
    [{ type: 'ActionDelivered', data: { deliveryId: 's1.t.w0', receipt: { attempt: 'first' } }, metadata: {} }],
    'any',
  );
  const ledger = createDeliveredLedger(t.store, silentLogger);
  await expect(ledger.find('signal-s1', 's1.t.w0')).rejects.toThrow(UnreadableEvent);
  await expect(ledger.find('signal-s1', 's1.t.w0')).rejects.toThrow(/delivered-signal-s1@0 cannot be read: .*attempt/);
});
