import fc from 'fast-check';
import { boundText, boundWarnings } from '../../src/dispatch/bounds';
import { MAX_OUTCOME_TEXT, MAX_WARNINGS_PER_ACTION } from '../../src/kernel/limits';

test('warnings: at most the first few, each bounded, then a count of the rest; bounding twice changes nothing', () => {
  fc.assert(
    fc.property(fc.array(fc.string({ maxLength: 2 * MAX_OUTCOME_TEXT }), { maxLength: 50 }), (warnings) => {
      const once = boundWarnings(warnings);
      expect(once.length).toBeLessThanOrEqual(MAX_WARNINGS_PER_ACTION + 1);
      once.forEach((w) => expect(w.length).toBeLessThanOrEqual(MAX_OUTCOME_TEXT));
      expect(boundWarnings(once)).toEqual(once);
      if (warnings.length > MAX_WARNINGS_PER_ACTION + 1)
        expect(once.at(-1)).toBe(`… and ${warnings.length - MAX_WARNINGS_PER_ACTION} more`);
    }),
  );
});

test('a long text is cut to the bound, a short one kept', () => {
  expect(boundText('short')).toBe('short');
  expect(boundText('z'.repeat(10_000))).toHaveLength(MAX_OUTCOME_TEXT);
});
