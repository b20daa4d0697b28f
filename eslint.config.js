import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import regexp from 'eslint-plugin-regexp';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** The worker's modules: the API side imports none of them (see the boundary rules below). */
const workerModules = {
  regex: '(^|/)(executor|rule-runner|rule-erasure|worker)(\\.ts)?$',
  message: 'The API side never imports worker code (executor, rule runner, worker): queue the work instead.',
};

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
  // House boundaries (issue 13). Each rule states who may depend on what, so the layout stays the one the
  // README's architecture part shows.
  {
    // Only jobs/queue.ts knows pg-boss: callers see our Queue (send in a transaction, work, inspect), so
    // the queue library can change in one file.
    files: ['src/**/*.ts'],
    ignores: ['src/jobs/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [{ name: 'pg-boss', message: 'Use src/jobs/queue.ts; only it knows pg-boss.' }] },
      ],
    },
  },
  {
    // Connection secrets are sealed and opened by their owner only (connections/secrets.ts): no other
    // module names their keys, so none can open an authorization, OAuth client or signing secret itself.
    files: ['src/**/*.ts'],
    ignores: ['src/connections/secrets.ts', 'src/crypto/keyring.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "Literal[value='connection-secrets'], Literal[value='callback-signing']",
          message: 'Connection secrets are sealed and opened by src/connections/secrets.ts only.',
        },
      ],
    },
  },
  {
    // The API side (routes, HTTP wiring, services) never imports worker code: it queues work and reads
    // what the worker stored, so an API process never runs a webhook call or a rule run by accident.
    files: ['src/**/routes.ts', 'src/**/*-routes.ts', 'src/**/register.ts', 'src/http/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [workerModules] }] },
  },
  {
    // Services and repositories never import Fastify (nor worker code): domain rules and SQL stay free of
    // HTTP, so they run the same from a route, the worker or the CLI; routes map their errors once.
    files: ['src/**/service.ts', 'src/**/*-service.ts', 'src/**/repository.ts', 'src/**/*-repository.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            workerModules,
            {
              regex: '^(fastify|fastify-plugin|@fastify/.*)$',
              message: 'Services and repositories stay free of HTTP: only routes and http/ import Fastify.',
            },
          ],
        },
      ],
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
