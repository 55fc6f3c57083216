// Lint: typescript-eslint's recommended rules; workflow code may import only deterministic modules.
const tseslint = require('typescript-eslint');
const js = require('@eslint/js');
const rooms = require('./scripts/room-imports');

module.exports = tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'data/', '.tools/', 'coverage/', 'test-output/', '*.config.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Rooms import one way (scripts/rooms.js): the layout shows the architecture.
    files: ['src/**/*.{ts,js}', 'activities/**/*.ts', 'projections/**/*.ts', 'workflows/**/*.ts'],
    plugins: { rooms },
    rules: { 'rooms/one-way': 'error' },
  },
  {
    files: ['**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly', process: 'readonly', __dirname: 'readonly', console: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', Atomics: 'readonly', Int32Array: 'readonly' } },
    // CommonJS files load their modules with require().
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The admin's ES modules run in the browser.
    files: ['web/**/*.js'],
    languageOptions: { sourceType: 'module', globals: {
      window: 'readonly', document: 'readonly', location: 'readonly', history: 'readonly', sessionStorage: 'readonly', fetch: 'readonly',
      URL: 'readonly', URLSearchParams: 'readonly', Node: 'readonly', HTMLElement: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly',
      console: 'readonly', confirm: 'readonly', AbortController: 'readonly', structuredClone: 'readonly', FormData: 'readonly', Event: 'readonly',
    } },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [{ regex: '^(?!@temporalio/(workflow|common)$|\\./[\\w-]+$|\\.\\./src/dispatch/[\\w-]+$)',
          message: 'workflow code is deterministic: import @temporalio/workflow, pure shared code, or `import type`',
          allowTypeImports: true }],
      }],
    },
  },
);
