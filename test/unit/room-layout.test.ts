import { Linter } from 'eslint';
import { join } from 'node:path';

const root = join(__dirname, '../..');

// The project's own flat config, with the linter's synchronous API (no child process, no dynamic import).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const config = require(join(root, 'eslint.config.js')) as Linter.Config[];
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { cyclesIn, HEIGHTS } = require(join(root, 'scripts/room-graph.js')) as {
  cyclesIn: (
    imports: Array<{ from: string; to: string }>,
    folderOf: (file: string) => string | undefined,
  ) => Array<{ component: string[] }>;
  HEIGHTS: Array<[string, (file: string) => string | undefined]>;
};

/** The messages of the layer rules for a source text placed at `file` in the tree. */
const layerErrors = (file: string, text: string) =>
  new Linter({ cwd: root })
    .verify(text, config, { filename: join(root, file) })
    .filter((m) => m.ruleId?.startsWith('rooms/'))
    .map((m) => m.message);

test('lint fails an import that points to a later layer (the event store importing a model), and passes one that points back', () => {
  const backEdge = "import { streamOf } from '../model/triggers/events';\nexport const s = streamOf;\n";
  expect(layerErrors('src/event-store/back-edge.ts', backEdge)).toEqual([
    'src/event-store (layer adapters) may not import src/model (layer models) (../model/triggers/events): a layer imports only the layers listed before it in scripts/rooms.js',
  ]);
  const earlier = "import { runCommand } from '../../event-store/command';\nexport const r = runCommand;\n";
  expect(layerErrors('src/model/triggers/up.ts', earlier)).toEqual([]);
}, 60_000);

test.each([
  [
    'src/http/bad.ts',
    "import { streamOf } from '../model/triggers/events';",
    'src/http never imports src/model/triggers (../model/triggers/events): the HTTP kit knows no domain',
  ],
  [
    'src/http/bad.ts',
    "import { Metrics } from '../observability/metrics';",
    'src/http never imports src/observability (../observability/metrics): the HTTP kit knows no domain',
  ],
  [
    'src/dispatch/bad.ts',
    "import { EventStore } from '../event-store/port';",
    'src/dispatch never imports src/event-store (../event-store/port): dispatch types are pure: the workflow bundle imports them',
  ],
  [
    'src/workflows/bad.ts',
    "import { MAX_WARNINGS_PER_ACTION } from '../kernel/limits';",
    'src/workflows never imports src/kernel (../kernel/limits): workflow code is deterministic',
  ],
  [
    'clients/node/src/bad.ts',
    "import type { TriggerView } from '../../../src/projections/trigger-view';",
    'clients/node never imports src/projections (../../../src/projections/trigger-view): the TypeScript client package ships without the server',
  ],
  [
    'src/destinations/webhook/bad.ts',
    "import { policyOf } from '../../config';",
    'src/destinations never imports src/config (../../config): a destination knows no feature',
  ],
  [
    'src/model/triggers/bad.ts',
    "import { attemptOnce } from '../../delivery/attempt';",
    'src/model never imports src/delivery (../../delivery/attempt): a model knows no activity',
  ],
  [
    'src/delivery/bad.ts',
    "import { createConnections } from '../destinations/broker-kit/connections';",
    "src/ outside src/destinations never imports src/destinations/broker-kit (../destinations/broker-kit/connections): a destination kind's folder is entered through the registry",
  ],
])(
  'a "never" rule: %s with %s',
  (file, line, message) => {
    expect(layerErrors(file, `${line}\nexport const x = 1;\n`)).toContain(`${message} (scripts/rooms.js)`);
  },
  60_000,
);

test('the destinations are entered through their door: the registry and port/ pass; tests may reach in', () => {
  const door =
    "import { DESTINATIONS } from '../destinations/registry';\nimport type { Channel } from '../destinations/port/channel';\nexport const d = DESTINATIONS;\nexport type C = Channel<unknown>;\n";
  expect(layerErrors('src/delivery/door.ts', door)).toEqual([]);
  const reachIn =
    "import { createConnections } from '../../src/destinations/broker-kit/connections';\nexport const c = createConnections;\n";
  expect(layerErrors('test/integration/reach-in.test.ts', reachIn)).toEqual([]);
}, 60_000);

test('the folder check finds folders that import each other, through a third one too, at each height', () => {
  const [leaf, underSrc, top] = HEIGHTS.map(([, folderOf]) => folderOf);
  const loop = [
    { from: 'src/a/x.ts', to: 'src/b/y.ts' },
    { from: 'src/b/y.ts', to: 'src/c/z.ts' },
    { from: 'src/c/z.ts', to: 'src/a/w.ts' },
  ];
  expect(cyclesIn(loop, leaf!).map((c) => c.component)).toEqual([['src/a', 'src/b', 'src/c']]);
  expect(cyclesIn(loop.slice(0, 2), leaf!)).toEqual([]);
  // Leaf folders apart, their parents under src/ import each other.
  const parents = [
    { from: 'src/model/t/x.ts', to: 'src/triggers/y.ts' },
    { from: 'src/triggers/y.ts', to: 'src/model/s/z.ts' },
  ];
  expect(cyclesIn(parents, leaf!)).toEqual([]);
  expect(cyclesIn(parents, underSrc!).map((c) => c.component)).toEqual([['src/model', 'src/triggers']]);
  expect(
    cyclesIn(
      [
        { from: 'src/x.ts', to: 'web/y.js' },
        { from: 'web/y.js', to: 'src/z.ts' },
      ],
      top!,
    ).map((c) => c.component),
  ).toEqual([['src', 'web']]);
});

test("the unit tier starts nothing: no global setup or teardown, only test/unit and the client package's", () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const jestConfig = require(join(root, 'jest.config.js')) as { projects: Array<Record<string, unknown>> };
  const unit = jestConfig.projects.find((p) => p.displayName === 'unit')!;
  expect([unit.globalSetup, unit.globalTeardown, unit.testMatch]).toEqual([
    undefined,
    undefined,
    ['<rootDir>/test/unit/**/*.test.ts', '<rootDir>/clients/node/test/unit/**/*.test.ts'],
  ]);
});
