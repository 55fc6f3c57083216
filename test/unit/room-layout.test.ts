import { Linter } from 'eslint';
import { join } from 'node:path';

const root = join(__dirname, '../..');

/** The lint messages of `rooms/one-way` for a source text placed at `file` in the tree. */
// The project's own flat config, with the linter's synchronous API (no child process, no dynamic import).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const config = require(join(root, 'eslint.config.js')) as Linter.Config[];
const roomErrors = (file: string, text: string) =>
  new Linter({ cwd: root }).verify(text, config, { filename: join(root, file) })
    .filter((m) => m.ruleId === 'rooms/one-way').map((m) => m.message);

test('lint fails an import that points back down the rooms (the event store importing a domain), and passes one that points up', () => {
  const backEdge = "import { streamOf } from '../triggers/model/events';\nexport const s = streamOf;\n";
  expect(roomErrors('src/event-store/back-edge.ts', backEdge)).toEqual([
    'src/event-store may not import src/triggers/model (../triggers/model/events): rooms import only the rooms listed before theirs in scripts/rooms.js',
  ]);
  const upward = "import { runCommand } from '../../event-store/command';\nexport const r = runCommand;\n";
  expect(roomErrors('src/triggers/model/up.ts', upward)).toEqual([]);
}, 60_000);

test('the unit tier starts nothing: no global setup or teardown, only test/unit', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const jestConfig = require(join(root, 'jest.config.js')) as { projects: Array<Record<string, unknown>> };
  const unit = jestConfig.projects.find((p) => p.displayName === 'unit')!;
  expect([unit.globalSetup, unit.globalTeardown, unit.testMatch]).toEqual([undefined, undefined, ['<rootDir>/test/unit/**/*.test.ts']]);
});
