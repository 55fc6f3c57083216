// Lint: typescript-eslint's recommended rules; workflow code may import only deterministic modules.
const tseslint = require('typescript-eslint');
const js = require('@eslint/js');

module.exports = tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'data/', '.tools/', 'coverage/', '*.config.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: ['*', '!@temporalio/workflow', '!./*', '!../src/dispatch/*'],
          message: 'workflow code is deterministic: import @temporalio/workflow, pure shared code, or `import type`' }],
      }],
    },
  },
);
