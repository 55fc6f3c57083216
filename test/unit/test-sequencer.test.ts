import { existsSync } from 'node:fs';
import { join } from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { LONGEST_FIRST } = require('../support/sequencer.js') as { LONGEST_FIRST: string[] };

test('every file the test sequencer starts first exists (a renamed one would silently start last again)', () => {
  const root = join(__dirname, '..', '..');
  expect(LONGEST_FIRST.length).toBeGreaterThan(0);
  expect(LONGEST_FIRST.filter((file) => !existsSync(join(root, file)))).toEqual([]);
});
