import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import regexp from 'eslint-plugin-regexp';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', '.lethe/', 'console/dist/', 'test-artifacts/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'error',
    },
  },
  {
    // A standing guard against ReDoS (issue 16): no regular expression anywhere may backtrack
    // super-linearly, whether it reads request data today or not.
    plugins: { regexp },
    rules: {
      'regexp/no-super-linear-backtracking': ['error', { report: 'potential' }],
      'regexp/no-super-linear-move': ['error', { report: 'potential', ignoreSticky: false }],
      'regexp/no-misleading-capturing-group': 'error',
    },
  },
  {
    // Only the metrics module knows the Prometheus client; the rest calls its methods.
    files: ['src/**/*.ts'],
    ignores: ['src/metrics/metrics.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [{ name: 'prom-client', message: 'Record metrics through src/metrics/metrics.ts.' }] },
      ],
    },
  },
  {
    files: ['console/src/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat.recommended,
    languageOptions: { globals: globals.browser },
  },
);
