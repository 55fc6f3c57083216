/**
 * Three tiers. `unit`: pure tests, no server, no child process (`npm run test:unit`).
 * `integration`: real servers (Temporal, brokers, Chromium) started once by the global setup
 * (test/support), which Jest runs only when a test of that project runs. `npm test` runs both.
 * `image`: the container image built and started with podman (`npm run test:image`, run by CI
 * after `npm test`: building it takes minutes).
 */
// .tools holds installed toolchains (two Node packages of one name): not the project's modules.
// The client package runs from its sources, as tsconfig.json's `paths` compiles it.
const common = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  modulePathIgnorePatterns: ['<rootDir>/.tools/'],
  moduleNameMapper: { '^@action-triggers/client$': '<rootDir>/clients/node/src/index.ts' },
};

module.exports = {
  testTimeout: 30000,
  maxWorkers: 2,
  testSequencer: '<rootDir>/test/support/sequencer.js',
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts', '<rootDir>/clients/node/test/unit/**/*.test.ts'] },
    {
      ...common,
      displayName: 'integration',
      // The compose file's check is quick once its Go checker is built: it runs with every `npm test`.
      testMatch: [
        '<rootDir>/test/integration/**/*.test.ts',
        '<rootDir>/test/browser/**/*.test.ts',
        '<rootDir>/test/deploy/compose.test.ts',
      ],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    {
      ...common,
      // The client package against a real PostgreSQL and the real service (clients/node/README.md, Tests).
      displayName: 'client-node',
      testMatch: ['<rootDir>/clients/node/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/clients/node/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/clients/node/test/support/global-teardown.ts',
    },
    { ...common, displayName: 'image', testMatch: ['<rootDir>/test/deploy/image.test.ts'] },
  ],
};
