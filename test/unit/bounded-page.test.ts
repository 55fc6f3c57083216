import fc from 'fast-check';
import { boundedPage } from '../../src/kernel/bounded-page';

/** The items' JSON array, as a page sends it. */
const arrayOf = (items: readonly string[]) => `[${items.join(',')}]`;

test('adds while the array stays within the bound, counting brackets, commas and UTF-8 bytes', () => {
  // [ "é" ] is 2 + 4 bytes; [ "é","ab" ] 2 + 4 + 1 + 4 = 11.
  const page = boundedPage(11);
  expect(page.add('"é"')).toBe(true);
  expect(page.bytes).toBe(6);
  expect(page.add('"ab"')).toBe(true);
  expect(page.bytes).toBe(11);
  expect(Buffer.byteLength(arrayOf(page.items))).toBe(11);
  expect(page.add('1')).toBe(false);
  expect(page.items).toEqual(['"é"', '"ab"']);
});

test('the first item always goes in, however small the bound; after a refusal every add is refused', () => {
  const page = boundedPage(1);
  expect(page.add('"a long first item"')).toBe(true);
  expect(page.add('1')).toBe(false);
  const full = boundedPage(10);
  expect(full.add('"12345"')).toBe(true);
  expect(full.add('"123"')).toBe(false);
  // It would fit, but taking it would skip the refused one.
  expect(full.add('1')).toBe(false);
  expect(full.items).toEqual(['"12345"']);
});

test('property: the items are the longest prefix whose array fits (at least one), and bytes is its size', () => {
  fc.assert(
    fc.property(fc.array(fc.json(), { minLength: 1, maxLength: 30 }), fc.integer({ min: 1, max: 400 }), (jsons, maxBytes) => {
      const page = boundedPage(maxBytes);
      let added = 0;
      while (added < jsons.length && page.add(jsons[added]!)) added++;
      const taken = jsons.slice(0, added);
      expect(page.items).toEqual(taken);
      expect(page.bytes).toBe(Buffer.byteLength(arrayOf(taken)));
      expect(added).toBeGreaterThanOrEqual(1);
      if (added > 1) expect(page.bytes).toBeLessThanOrEqual(maxBytes);
      if (added < jsons.length) expect(Buffer.byteLength(arrayOf(jsons.slice(0, added + 1)))).toBeGreaterThan(maxBytes);
    }),
  );
});
