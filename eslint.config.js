import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import regexp from 'eslint-plugin-regexp';
import globals from 'globals';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import letheRules from './tools/eslint-secret-owners.js';
import tseslint from 'typescript-eslint';

/**
 * The house's rooms, drawn by folder (README, "Architecture"). Every boundary below is one zone of one
 * rule, so that no block can silently replace another (ESLint keeps only the last options a file set
 * gives a rule); test/lint/boundaries.test.ts plants a violation of each and fails if any passes.
 */
const WORKER_CODE = [
  './src/privacy-requests/engine',
  './src/privacy-requests/rules/runner.ts',
  './src/privacy-requests/rules/erasure.ts',
  './src/outbox/worker.ts',
  './src/outbox/delivery.ts',
];
/** Folders whose code runs behind the API: routes, the HTTP kit and the services they call. */
const API_SIDE = [
  './src/!(runtime|cli|privacy-requests|outbox)/**',
  './src/privacy-requests/*.ts',
  // The action types' own modules hold their part of the run: runtime/ registers them, the API reads the registry.
  './src/privacy-requests/rules/!(runner|erasure|*-action).ts',
  './src/privacy-requests/messages/**',
  './src/outbox/!(worker|delivery).ts',
];
/** Where domain rules and SQL live: they run the same from a route, the worker or the CLI. */
const HTTP_FREE = [
  './src/datastore/**',
  './src/db/**',
  './src/crypto/**',
  './src/jobs/**',
  './src/mail/**',
  './src/audit/**',
  './src/**/service.ts',
  './src/**/*-service.ts',
  './src/**/repository.ts',
  './src/**/*-repository.ts',
  './src/privacy-requests/engine/**',
  './src/privacy-requests/rules/**',
  './src/outbox/worker.ts',
  './src/outbox/delivery.ts',
];
const DOMAIN_ROOMS = [
  'access-delivery',
  'agents',
  'api-keys',
  'cli',
  'connections',
  'consent',
  'console',
  'corrections',
  'disclosure',
  'datastore',
  'deadlines',
  'fides-compat',
  'health',
  'manual-systems',
  'metrics',
  'notes',
  'operators',
  'outbox',
  'policies',
  'privacy-center',
  'privacy-center-settings',
  'privacy-requests',
  'reports',
  'runtime',
  'scim',
  'sso',
  'subject-api',
  'tasks',
  'verification',
  'webhooks',
].map((room) => `./src/${room}`);

/**
 * The features around the core: they plug into a request's life through the action registry
 * (src/actions/registry.ts) and the lifecycle hooks (src/privacy-requests/lifecycle.ts), registered at start
 * by src/runtime/features.ts. The core never names them.
 */
const CORE_FEATURES = [
  'access-delivery',
  'agents',
  'cli',
  'consent',
  'console',
  'corrections',
  'disclosure',
  'fides-compat',
  'manual-systems',
  'metrics',
  'notes',
  'privacy-center',
  'reports',
  'runtime',
  'subject-api',
  'tasks',
  'verification',
].map((room) => `./src/${room}`);

/** Each key purpose and the one module that derives it. */
const SECRET_OWNERS = {
  'connection-secrets': 'src/connections/secrets.ts',
  'callback-signing': 'src/connections/secrets.ts',
  'identity-cache': 'src/privacy-requests/identity.ts',
  'request-identity-index': 'src/privacy-requests/duplicates.ts',
  'identity-verification': 'src/verification/',
  'resume-token': 'src/privacy-requests/reply-token.ts',
  'access-package': 'src/privacy-requests/rules/access-package.ts',
  'target-oauth-token': 'src/callbacks/target-oauth.ts',
  'root-token-digest': 'src/auth/service.ts',
  'masking-hash': 'src/masking/strategies.ts',
  outbox: 'src/outbox/content.ts',
  'task-data': 'src/tasks/task-data.ts',
  'request-notes': 'src/notes/sealing.ts',
  'datastore-values:': 'src/datastore/sealing.ts',
  'datastore-blind-index:': 'src/datastore/sealing.ts',
  'consent-index': 'src/consent/identity-index.ts',
  'authorized-agent': 'src/agents/sealing.ts',
  corrections: 'src/corrections/sealing.ts',
  'oidc-sign-in': 'src/sso/service.ts',
};

const houseZones = [
  {
    target: ['./src/!(jobs)/**', './src/*.ts'],
    from: './node_modules/pg-boss',
    message: 'Use src/jobs/queue.ts; only it knows pg-boss.',
  },
  {
    target: ['./src/!(metrics)/**', './src/*.ts', './src/metrics/!(metrics).ts'],
    from: './node_modules/prom-client',
    message: 'Record metrics through src/metrics/metrics.ts; only it knows the Prometheus client.',
  },
  {
    target: ['./src/!(mail)/**', './src/*.ts'],
    from: './node_modules/nodemailer',
    message: 'Send mail through src/mail/transport.ts; only it knows the mail library.',
  },
  {
    target: ['./src/!(sso)/**', './src/*.ts', './src/sso/!(oidc-client).ts'],
    from: './node_modules/openid-client',
    message: 'Sign in through src/sso/oidc-client.ts; only it knows the OpenID Connect library.',
  },
  {
    target: HTTP_FREE,
    from: ['./node_modules/fastify', './node_modules/fastify-plugin', './node_modules/@fastify'],
    message:
      'The store, services, repositories and the worker stay free of HTTP: only routes and http/ import Fastify.',
  },
  {
    target: './src/datastore',
    from: ['./src/subject-api', './src/http', './src/runtime'],
    message: 'The store is below its HTTP faces: subject-api/ calls datastore/, never the other way.',
  },
  {
    target: './src/outbox',
    from: ['./src/privacy-requests', './src/privacy-center', './src/privacy-center-settings'],
    message:
      'The outbox seals and delivers what it is given: privacy-requests/messages/ words and addresses the message, and the runtime wires the delivery log.',
  },
  {
    target: './src/privacy-requests',
    from: CORE_FEATURES,
    message:
      'The core is called, it does not call: privacy-requests/ reads the action registry and its lifecycle hooks, which the features register at start (src/runtime/features.ts).',
  },
  {
    target: './src/http',
    from: DOMAIN_ROOMS,
    message:
      'http/ is the shared kit (authorize, schemas, errors, validation): it imports no domain; runtime/ wires them.',
  },
  {
    target: API_SIDE,
    from: WORKER_CODE,
    message:
      'The API side never imports worker code (executor, rule runner, workers): queue the work instead.',
  },
];

export default tseslint.config(
  { ignores: ['node_modules/', '.lethe/', 'console/dist/', 'dist/', 'test-artifacts/'] },
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
  // House boundaries: who may depend on what, so the layout stays the one the README's architecture shows.
  {
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.mjs'] })] },
    rules: { 'import-x/no-restricted-paths': ['error', { zones: houseZones }] },
  },
  {
    // Keys are derived per purpose (crypto/keyring.ts); each purpose is used by its owner only, so no other
    // module can open an authorization, OAuth client or signing secret, a sealed identity, an outbox
    // message or a resume token itself. Template literals count too.
    files: ['src/**/*.ts'],
    plugins: { lethe: letheRules },
    rules: { 'lethe/secret-owners': ['error', SECRET_OWNERS] },
  },
  {
    files: ['console/src/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat.recommended,
    languageOptions: { globals: globals.browser },
  },
);
