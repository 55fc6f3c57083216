import { getHeapStatistics } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { fullCollection, idleCollectionPolicy } from '../../src/kernel/idle-collection';

const MB = 2 ** 20;

test('collects once the process has been quiet for two samples after its heap grew by more than 64 MB, and once per growth', () => {
  const policy = idleCollectionPolicy(100 * MB);
  // Busy while growing: never during load.
  expect(policy.shouldCollect({ utilisation: 0.9, heapBytes: 400 * MB })).toBe(false);
  expect(policy.shouldCollect({ utilisation: 0.6, heapBytes: 500 * MB })).toBe(false);
  // One quiet sample is a pause, not idleness.
  expect(policy.shouldCollect({ utilisation: 0.01, heapBytes: 500 * MB })).toBe(false);
  expect(policy.shouldCollect({ utilisation: 0.3, heapBytes: 500 * MB })).toBe(false);
  expect(policy.shouldCollect({ utilisation: 0.01, heapBytes: 500 * MB })).toBe(false);
  expect(policy.shouldCollect({ utilisation: 0.02, heapBytes: 500 * MB })).toBe(true);
  policy.collected(120 * MB);
  // Quiet afterwards, the heap back near its size: nothing more to do.
  for (let i = 0; i < 10; i++) expect(policy.shouldCollect({ utilisation: 0, heapBytes: 150 * MB })).toBe(false);
  // The next burst, then quiet: once more.
  expect(policy.shouldCollect({ utilisation: 0.8, heapBytes: 300 * MB })).toBe(false);
  expect(policy.shouldCollect({ utilisation: 0, heapBytes: 300 * MB })).toBe(false);
  expect(policy.shouldCollect({ utilisation: 0, heapBytes: 300 * MB })).toBe(true);
});

test('a quiet process whose heap grew little is left alone', () => {
  const policy = idleCollectionPolicy(100 * MB);
  for (let i = 0; i < 20; i++) expect(policy.shouldCollect({ utilisation: 0, heapBytes: 160 * MB })).toBe(false);
});

test("the full collection is V8's own: garbage made here is gone after it, and later contexts do not get `gc`", () => {
  // This file's context may come after another test's collection in the same worker: compare with it.
  const globalBefore = (globalThis as { gc?: unknown }).gc;
  const gc = fullCollection();
  expect(typeof gc).toBe('function');
  let garbage: number[][] | undefined = Array.from({ length: 200 }, () => Array.from({ length: 50_000 }, (_, i) => i));
  const { used_heap_size: withGarbage, total_heap_size: committed } = getHeapStatistics();
  expect(garbage.length).toBe(200);
  garbage = undefined;
  gc!();
  expect(getHeapStatistics().used_heap_size).toBeLessThan(withGarbage - 40 * MB);
  // The pages the garbage was on are given back, not kept for later.
  expect(getHeapStatistics().total_heap_size).toBeLessThan(committed - 40 * MB);
  expect((globalThis as { gc?: unknown }).gc).toBe(globalBefore);
  expect(runInNewContext('typeof gc')).toBe('undefined');
});
