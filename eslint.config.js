import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import regexp from 'eslint-plugin-regexp';
import globals from 'globals';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import letheRules from './tools/eslint-secret-owners.js';
import trustRules from './tools/eslint-trusted-identity.js';
import tseslint from 'typescript-eslint';

/**
 * The house's rooms, drawn by folder (docs/architecture.md). Every boundary below is one zone of one
 * rule, so that no block can silently replace another (ESLint keeps only the last options a file set
 * gives a rule); test/lint/boundaries.test.ts plants a violation of each and fails if any passes.
 */
/** Every TypeScript file of src/, as './src/...' (read at each lint run, so a new file is inside its zones). */
const SOURCE_FILES = readdirSync(new URL('./src/', import.meta.url), { recursive: true })
  .map((file) => `./src/${String(file).replaceAll('\\', '/')}`)
  .filter((file) => file.endsWith('.ts'))
  .sort();
const isRoute = (file) => /\/([\w-]+-)?routes\.ts$/.test(file);
const isRepository = (file) => /\/([\w-]+-)?repository\.ts$/.test(file);
const under = (folders) => (file) => folders.some((folder) => file.startsWith(`./src/${folder}/`));

const WORKER_CODE = [
  './src/privacy-requests/engine',
  './src/privacy-requests/rules/runner.ts',
  './src/privacy-requests/rules/erasure.ts',
  './src/outbox/worker.ts',
  './src/outbox/delivery.ts',
  './src/events/delivery.ts',
  './src/events/delivery-repository.ts',
  './src/events/worker.ts',
];
/**
 * Folders whose code runs behind the API: routes, the HTTP kit and the services they call; runtime/ too,
 * except its worker entry (start.ts starts the engine's and the outbox's workers). runtime/features.ts
 * registers the action types: each type's module (rules/*-action.ts, consent/action.ts, ...) carries its
 * part of the run beside its schema and checks, so registering it loads that code; the API reads only the
 * registry's descriptions and never calls a run (the rule runner does). That seam is the one exception: the
 * registration may import an action type's module, never the engine, the runner or erasure itself.
 */
const API_SIDE = [
  './src/!(runtime|cli|privacy-requests|outbox|events)/**',
  './src/runtime/!(start).ts',
  './src/privacy-requests/*.ts',
  // The action types' own modules hold their part of the run: runtime/ registers them, the API reads the registry.
  './src/privacy-requests/rules/!(runner|erasure|*-action).ts',
  './src/privacy-requests/messages/**',
  './src/outbox/!(worker|delivery).ts',
  './src/events/!(worker|delivery|delivery-repository).ts',
];
/**
 * The HTTP faces, the only code that may import Fastify: the folders whose every file faces HTTP, every
 * domain's route modules (routes.ts, *-routes.ts), and the few HTTP plugins kept beside their domain. The
 * rest of src/ is free of HTTP by folder, whatever its files are named (intake.ts, creation.ts, ...): domain
 * rules and SQL run the same from a route, the worker or the CLI.
 */
const HTTP_FOLDERS = ['http', 'runtime', 'rate-limits', 'subject-api'];
const HTTP_PLUGINS = [
  './src/api-keys/gate.ts',
  './src/privacy-center/cross-site.ts',
  './src/privacy-center/language.ts',
  './src/privacy-center/throttle.ts',
  './src/public-pages/replies.ts',
];
const HTTP_FREE = SOURCE_FILES.filter(
  (file) => !under(HTTP_FOLDERS)(file) && !isRoute(file) && !HTTP_PLUGINS.includes(file),
);
/** Only the database adapter (db/) and the repositories speak to PostgreSQL's driver. */
const PG_FREE = SOURCE_FILES.filter((file) => !under(['db'])(file) && !isRepository(file));
const REPOSITORIES = SOURCE_FILES.filter(isRepository);
const ROUTES = SOURCE_FILES.filter(isRoute);
const DOMAIN_ROOMS = [
  'access-delivery',
  'actions',
  'agents',
  'api-keys',
  'callbacks',
  'cli',
  'connections',
  'consent',
  'console',
  'corrections',
  'disclosure',
  'datastore',
  'erasure-preview',
  'events',
  'deadlines',
  'fides-compat',
  'health',
  'manual-systems',
  'masking',
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
  'erasure-preview',
  'events',
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
  'mail-recipient': 'src/outbox/recipient-caps.ts',
  'resume-token': 'src/privacy-requests/reply-token.ts',
  'access-package': 'src/privacy-requests/rules/access-package.ts',
  'target-oauth-token': 'src/callbacks/target-oauth.ts',
  'root-token-digest': 'src/auth/service.ts',
  'masking-hash': 'src/masking/strategies.ts',
  outbox: 'src/outbox/content.ts',
  'task-data': 'src/tasks/task-data.ts',
  'request-notes': 'src/notes/sealing.ts',
  'event-signing': 'src/events/secrets.ts',
  'datastore-values:': 'src/datastore/sealing.ts',
  'datastore-blind-index:': 'src/datastore/sealing.ts',
  'consent-index': 'src/consent/identity-index.ts',
  'authorized-agent': 'src/agents/sealing.ts',
  corrections: 'src/corrections/sealing.ts',
  'oidc-sign-in': 'src/sso/sign-in-secrets.ts',
};

/**
 * The modules that seal and open with a derived key, and the key ring's own folder: a route asks a service,
 * it never imports one of these. The owners that are services a route calls (auth/service.ts,
 * verification/, masking/strategies.ts) keep their keys behind their methods; crypto/password.ts hashes
 * passwords with no derived key (a route reads its length bound for the schema).
 */
const KEYS_BEHIND_A_SERVICE = ['src/auth/service.ts', 'src/verification/', 'src/masking/strategies.ts'];
const SECRET_MODULES = [
  './src/crypto',
  ...new Set(Object.values(SECRET_OWNERS).filter((owner) => !KEYS_BEHIND_A_SERVICE.includes(owner))),
].map((owner) => (owner.startsWith('./') ? owner : `./${owner}`));

/**
 * Each function that makes a TrustedIdentity (src/privacy-requests/trusted-identity.ts) and the modules that
 * hold its proof (docs/decisions.md#whom-lethe-acts-for): nothing else may import it.
 */
const TRUST_MINTERS = {
  provedByCode: ['src/verification/service.ts'],
  provedByAgentConfirmation: ['src/agents/service.ts'],
  establishedByPowerOfAttorney: ['src/agents/service.ts'],
  givenByOperator: ['src/privacy-requests/service.ts'],
  derivedByWebhook: ['src/privacy-requests/engine/executor.ts', 'src/privacy-requests/reply-service.ts'],
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
    target: PG_FREE,
    from: './node_modules/pg',
    message:
      'Only db/ and the repositories speak to PostgreSQL: take a Queryable (db/database.ts) and call a repository.',
  },
  {
    target: './src/cli',
    from: REPOSITORIES,
    message:
      'A CLI command calls the same services as a route, never a repository: the rules live in the service.',
  },
  {
    target: ROUTES,
    from: SECRET_MODULES,
    except: ['./password.ts'],
    message:
      'A route never holds a key: it asks the service that owns the secret (SECRET_OWNERS) to seal or open it.',
  },
  {
    target: HTTP_FREE,
    from: ['./node_modules/fastify', './node_modules/fastify-plugin', './node_modules/@fastify'],
    message:
      'Domain code, repositories and the worker stay free of HTTP, by folder: only the HTTP faces (http/, runtime/, rate-limits/, subject-api/, route modules and the plugins HTTP_PLUGINS names) import Fastify.',
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
    target: './src/http',
    from: './src/auth',
    except: ['./scopes.ts'],
    message:
      'http/ is the shared kit: it reads the scopes vocabulary (auth/scopes.ts), never the auth service or its tables.',
  },
  {
    target: API_SIDE,
    from: WORKER_CODE,
    message:
      'The API side never imports worker code (executor, rule runner, workers): queue the work instead.',
  },
];

const consoleZones = [
  {
    target: './console',
    from: './src',
    message:
      'The console talks to the API through the generated client (clients/typescript), never by importing src/.',
  },
];

/**
 * The rules this file configures itself (the presets' rules aside): test/lint/boundaries.test.ts plants a
 * violation of each rule here and of each zone, and fails when one has no plant or a plant passes.
 */
export const houseRuleBlocks = [
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
  // House boundaries: who may depend on what, so the layout stays the one docs/architecture.md draws.
  {
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.mjs'] })] },
    rules: { 'import-x/no-restricted-paths': ['error', { zones: houseZones }] },
  },
  {
    // Keys are derived per purpose (crypto/keyring.ts); each purpose is used by its owner only, so no other
    // module can open an authorization, OAuth client or signing secret, a sealed identity, an outbox
    // message or a resume token itself. Template literals count too; a purpose must be written out.
    files: ['src/**/*.ts'],
    plugins: { lethe: letheRules },
    rules: { 'lethe/secret-owners': ['error', SECRET_OWNERS] },
  },
  {
    // The console is a client of the API like any other: it reads the generated client, never src/.
    files: ['console/**/*.{ts,tsx,mjs}'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.js', '.mjs'] })],
    },
    rules: { 'import-x/no-restricted-paths': ['error', { zones: consoleZones }] },
  },
  {
    // Trust is a type only proof makes: each minting function is imported by its proving module only, and
    // nothing casts to the trusted types but identity.ts, which opens the trusted set it sealed.
    files: ['src/**/*.ts'],
    plugins: { trust: trustRules },
    rules: {
      'trust/trusted-identity': [
        'error',
        { minters: TRUST_MINTERS, casters: ['src/privacy-requests/identity.ts'] },
      ],
    },
  },
  {
    // No test depends on the day it runs (issue 37: a retention test failed on some days of the month). A
    // calendar expectation is computed from a clock the test passes in, or from fixed dates; the wall
    // clock stays for what is not a date: deadlines of a wait, unique names. A read that must stay (a
    // value Lethe stamps with its own clock, compared within a margin) says why in its disable comment.
    files: ['test/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message:
            "new Date() reads today's date: pass the code a clock and expect dates computed from it (or from fixed dates).",
        },
        {
          selector:
            "NewExpression[callee.name='Date'] CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message:
            'A date built from Date.now() depends on the day the test runs: use a fixed date, or the clock the test passes in.',
        },
        {
          selector: "CallExpression[callee.type='Identifier'][callee.name='Date']",
          message: "Date() reads today's date: use a fixed date, or the clock the test passes in.",
        },
        {
          selector: "MemberExpression[object.name='Temporal'][property.name='Now']",
          message: "Temporal.Now reads today's date: use a fixed date, or the clock the test passes in.",
        },
      ],
    },
  },
];

export default tseslint.config(
  { ignores: ['node_modules/', '.lethe/', 'console/dist/', 'dist/', 'test-artifacts/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...houseRuleBlocks,
  {
    files: ['console/src/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat.recommended,
    languageOptions: { globals: globals.browser },
  },
);
