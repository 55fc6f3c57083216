// Lint: typescript-eslint's recommended rules; workflow code may import only deterministic modules.
const tseslint = require('typescript-eslint');
const js = require('@eslint/js');
const rooms = require('./scripts/room-imports');

module.exports = tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'clients/node/dist/', 'data/', '.tools/', 'coverage/', 'test-output/', '*.config.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Layers import one way, and folders keep their "never" rules (scripts/rooms.js).
    files: ['src/**/*.{ts,js}', 'clients/node/src/**/*.ts'],
    plugins: { rooms },
    rules: { 'rooms/one-way': 'error', 'rooms/never': 'error' },
  },
  {
    files: ['**/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        module: 'writable',
        require: 'readonly',
        process: 'readonly',
        __dirname: 'readonly',
        console: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        Buffer: 'readonly',
        Atomics: 'readonly',
        Int32Array: 'readonly',
      },
    },
    // CommonJS files load their modules with require().
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The admin's ES modules run in the browser.
    files: ['web/**/*.js'],
    languageOptions: {
      sourceType: 'module',
      globals: {
        window: 'readonly',
        document: 'readonly',
        location: 'readonly',
        history: 'readonly',
        sessionStorage: 'readonly',
        fetch: 'readonly',
        URL: 'readonly',
        URLSearchParams: 'readonly',
        Node: 'readonly',
        HTMLElement: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        console: 'readonly',
        confirm: 'readonly',
        AbortController: 'readonly',
        structuredClone: 'readonly',
        FormData: 'readonly',
        Event: 'readonly',
      },
    },
  },
  {
    // Workflow code is deterministic, and the dispatch types it shares are pure: of packages,
    // only Temporal's workflow and common ones (relative imports: rooms/never).
    files: ['src/workflows/**/*.ts', 'src/dispatch/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!@temporalio/(workflow|common)$|\\.)',
              message:
                'workflow code and the types it shares are deterministic: import @temporalio/workflow or @temporalio/common, pure shared code, or `import type`',
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
);
