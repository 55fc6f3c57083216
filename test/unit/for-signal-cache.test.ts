import { cachedForSignal } from '../../src/projections/for-signal-cache';
import type { SignalTriggers } from '../../src/projections/read-model';

const answer = (version: number): SignalTriggers => ({
  matching: [],
  watching: [{ id: 't', version, active: true, signals: ['post_save'] }],
});

test('answers from memory while the checkpoint stays, and reads again as soon as it moves', () => {
  let at: bigint | 'start' = 'start';
  let reads = 0;
  const forSignal = cachedForSignal(
    () => at,
    () => ({ value: answer(++reads), chars: 10 }),
  );
  expect(forSignal('post_save', 'shop', 'order', 20).watching[0]!.version).toBe(1);
  expect(forSignal('post_save', 'shop', 'order', 20).watching[0]!.version).toBe(1);
  expect(reads).toBe(1);
  // Another content type, signal or limit is its own answer.
  forSignal('post_delete', 'shop', 'order', 20);
  forSignal('post_save', 'shop', 'order', 21);
  expect(reads).toBe(3);
  at = 5n;
  expect(forSignal('post_save', 'shop', 'order', 20).watching[0]!.version).toBe(4);
  at = 6n;
  expect(forSignal('post_save', 'shop', 'order', 20).watching[0]!.version).toBe(5);
  expect(forSignal('post_save', 'shop', 'order', 20).watching[0]!.version).toBe(5);
});

test('keeps at most 256 answers and 32 MiB of definitions: past either it starts again', () => {
  let reads = 0;
  const forSignal = cachedForSignal(
    () => 1n,
    (_s, _a, model) => ({ value: answer(++reads), chars: model === 'huge' ? 20 * 1024 * 1024 : 1 }),
  );
  for (let i = 0; i < 300; i++) forSignal('post_save', 'shop', `m${i}`, 20);
  expect(reads).toBe(300);
  forSignal('post_save', 'shop', 'm299', 20);
  expect(reads).toBe(300);
  forSignal('post_save', 'shop', 'm0', 20); // dropped when the 257th came
  expect(reads).toBe(301);
  forSignal('post_save', 'shop', 'huge', 20);
  forSignal('post_save', 'shop', 'huge', 21); // 40 MiB together: the first is let go
  forSignal('post_save', 'shop', 'huge', 20);
  expect(reads).toBe(304);
});
