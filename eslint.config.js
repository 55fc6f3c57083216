// Lint: typescript-eslint's recommended rules; workflow code may import only deterministic modules.
const tseslint = require('typescript-eslint');
const js = require('@eslint/js');

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
    files: ['**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly', process: 'readonly', __dirname: 'readonly' } },
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
