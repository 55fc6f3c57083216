import { groupCommitter } from '../../src/event-store/group-commit';
import { StoreUnavailable } from '../../src/event-store/port';

const event = { type: 'Noted', data: {}, metadata: {} };

/** A commit that takes `ms` and fails as unavailable the first time, then commits. */
const failingOnce = (ms: number) => {
  const calls: number[] = [];
  const commit = async (group: { streamId: string }[]) => {
    calls.push(group.length);
    await new Promise((r) => setTimeout(r, ms));
    if (calls.length === 1) throw new StoreUnavailable('the server is away');
    return group.map((_, i) => ({ ok: true as const, nextRevision: 0n, position: BigInt(i + 1) }));
  };
  return { calls, commit };
};

test('a store on a server: appends queued behind a group that failed as unavailable fail with it, without a second wait', async () => {
  const { calls, commit } = failingOnce(200);
  const groups = groupCommitter(commit, () => undefined, 1024, true);
  const started = Date.now();
  const first = groups.append('a-1', [event], 'no_stream').catch((e: unknown) => e);
  await new Promise((r) => setTimeout(r, 50)); // the first group is committing
  const queued = groups.append('a-2', [event], 'no_stream').catch((e: unknown) => e);
  expect(await first).toBeInstanceOf(StoreUnavailable);
  expect(await queued).toBeInstanceOf(StoreUnavailable);
  expect(Date.now() - started).toBeLessThan(350);
  expect(calls).toEqual([1]);
  // The next append is committed as usual.
  await expect(groups.append('a-3', [event], 'no_stream')).resolves.toMatchObject({ position: 1n });
});

test('the embedded store: an append queued behind a failed group is still tried in its own commit', async () => {
  const { calls, commit } = failingOnce(50);
  const groups = groupCommitter(commit, () => undefined, 1024);
  const first = groups.append('b-1', [event], 'no_stream').catch((e: unknown) => e);
  await new Promise((r) => setTimeout(r, 20));
  const queued = groups.append('b-2', [event], 'no_stream');
  expect(await first).toBeInstanceOf(StoreUnavailable);
  await expect(queued).resolves.toMatchObject({ position: 1n });
  expect(calls).toEqual([1, 1]);
});
