// The one place where the environment becomes typed configuration. A bad value stops the process with a
// sentence naming the variable; nothing else in the code reads process.env.
import { isIP } from 'node:net';
import path from 'node:path';
import { LANGUAGES, REFERENCE_LANGUAGE } from './i18n/catalogue.ts';

export interface Config {
  port: number;
  host: string;
  /** PostgreSQL connection string; absent means the embedded PostgreSQL server in `dataDir`. */
  databaseUrl: string | undefined;
  dataDir: string;
  /** 32 bytes from LETHE_ENCRYPTION_KEY; absent means "read or create the key file in the data dir". */
  encryptionKey: Buffer | undefined;
  rootClient: { id: string; secret: string } | undefined;
  privacyRequestDelayTimeoutSeconds: number;
  defaultTtlSeconds: number;
  /** A task is due this many days before its request's due date (docs/human-steps.md). */
  taskMarginDays: number;
  /** A request that made no progress for this long (or has an overdue task) is flagged stuck. */
  stuckAfterSeconds: number;
  requireManualApproval: boolean;
  allowInsecureWebhooks: boolean;
  webhookAllowedHosts: string[];
  webhookTimeoutMs: number;
  smtpUrl: string | undefined;
  redisUrl: string | undefined;
  /** Prefix of every Redis key Lethe writes (several installations may share one Redis). */
  redisKeyPrefix: string;
  /** Sender address of mailed SAR reports and of the messages to data subjects. */
  smtpFrom: string;
  maxFileBytes: number;
  /**
   * LETHE_TRUST_PROXY: addresses or CIDRs of reverse proxies whose X-Forwarded-For is believed (for the
   * throttles and the request log); empty means the connection's own address is the client's.
   */
  trustProxy: string[];
  /** Failed authentications an address may make in a minute before it is refused (429) until the minute ends. */
  authFailuresPerMinute: number;
  /** Days the audit log and the privacy-request log keep whole months; 0 keeps them forever. */
  auditRetentionDays: number;
  /**
   * LETHE_DUPLICATE_DETECTION: which requests are checked for duplicates once trusted: `public` (from the
   * public side), `all` (operator-made too) or `off`.
   */
  duplicateDetection: 'public' | 'all' | 'off';
  /** LETHE_REQUEST_RETENTION_DAYS: days after closing when a request's identity values are purged. */
  requestRetentionDays: number;
  /** Lifetime of management access tokens; not an environment variable, tests shorten it. */
  accessTokenTtlSeconds: number;
  logLevel: string;
  /** How often an idle worker polls the queue for privacy-request work (not an environment variable). */
  jobPollingIntervalSeconds: number;
  /**
   * A worker running a request sends a heartbeat every half of this; a job whose worker stopped sending
   * them (killed, frozen) is given to another worker after it (pg-boss needs at least 10).
   */
  jobHeartbeatSeconds: number;
  /** How often pg-boss looks for jobs of dead workers (not an environment variable; tests shorten it). */
  jobSuperviseIntervalSeconds: number;
  /** How often the sweep (paused-request expiry, identity purge) runs (not an environment variable). */
  sweepIntervalSeconds: number;
  /**
   * A request in approved or in_processing (or awaiting a pre-approval call) that has not moved for this
   * long and has no job in the queue is queued again by the sweep (not an environment variable).
   */
  stalledRequestSeconds: number;
  /** Fetch loops of a worker process; each advances up to two requests at a time. */
  workerConcurrency: number;
  /** First delay between tries of a one_way webhook, doubled for the next (not an environment variable). */
  webhookRetryDelayMs: number;
  /** Bearer token GET /metrics requires when set; unset, /metrics answers loopback callers only. */
  metricsToken: string | undefined;
  /** Public privacy-request submissions (and verification calls) an address may make in a minute. */
  publicRequestsPerMinute: number;
  /** Public submissions start in identity_unverified and need the mailed code. */
  identityVerificationRequired: boolean;
  identityVerificationTtlSeconds: number;
  /** A verified public erasure is approved without an operator (LETHE_PUBLIC_ERASURE_AUTO_APPROVE); default false. */
  publicErasureAutoApprove: boolean;
  /** Base of the links mailed to subjects; absent means the address the API listens on. */
  publicUrl: string | undefined;
  /**
   * LETHE_DEFAULT_LANGUAGE: the language of a visitor whose browser asks for none Lethe speaks, and of every
   * message of a request that stored none (one made through the API); one of src/i18n/catalogues/.
   */
  defaultLanguage: string;
  accessPackageTtlSeconds: number;
  /** A public request still unverified after this long is canceled by the sweep (not an environment variable). */
  unverifiedRequestSeconds: number;
  /** LETHE_PASSWORD_LOGIN: whether operators may sign in with a password; false leaves the provider (and clients). */
  passwordLogin: boolean;
  /** OpenID Connect sign-in (LETHE_OIDC_*); absent when LETHE_OIDC_ISSUER is not set. */
  oidc: OidcConfig | undefined;
  /** How often the worker looks for outbox messages due for delivery (not an environment variable). */
  outboxPollIntervalSeconds: number;
  /** Longest wait between two delivery tries of a message; the wait doubles up to it (not an environment variable). */
  outboxRetryMaxSeconds: number;
  /** An open request due within this many days gets its privacy_request.due_soon event (docs/events.md). */
  dueSoonDays: number;
  /** The operators' time zone (IANA name): the daily digest goes out in its morning. */
  timeZone: string;
  /**
   * LETHE_TIME_ZONE when it is set (null otherwise): then every deadline counts in that zone's local days
   * instead of each jurisdiction's or location's own (docs/deadlines.md, "Local days").
   */
  deadlineTimeZone: string | null;
  /** The local hour from which the day's digest goes out (not an environment variable). */
  digestHour: number;
  /** How often the worker looks for event deliveries that are due (not an environment variable). */
  eventPollIntervalSeconds: number;
}

export interface OidcConfig {
  /** The issuer URL; its /.well-known/openid-configuration says the rest. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** LETHE_OIDC_REDIRECT_URL; absent means `<public url>/v1/oidc/callback`. */
  redirectUrl: string | undefined;
  /** The claim of the ID token (or userinfo) that lists the person's groups (default `groups`). */
  rolesClaim: string;
  /** Group -> Lethe roles (built-in or custom). */
  roleMap: Record<string, string[]>;
  /** The provider's name on the console's button ("Sign in with Okta"). */
  name: string;
  /** LETHE_OIDC_SCOPES: the scopes asked for (default `openid email profile`; Okta's groups need `groups`). */
  scopes: string;
  /**
   * Seconds Lethe's clock is taken to be ahead when checking ID tokens (not an environment variable: tests
   * set it to see an expired token refused without waiting).
   */
  clockSkewSeconds: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < min || !Number.isSafeInteger(Number(raw))) {
    throw new ConfigError(`${name} must be a whole number of at least ${min}; got "${raw}".`);
  }
  return Number(raw);
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['true', '1', 'yes', 'on'].includes(raw)) return true;
  if (['false', '0', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false; got "${env[name]}".`);
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL (${protocols.join(' or ')}).`);
  }
  if (!protocols.includes(parsed.protocol.replace(/:$/, ''))) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}; got "${parsed.protocol}".`);
  }
  return raw;
}

/** A comma list of IP addresses or CIDRs (`10.0.0.0/8`, `fd00::/8`); anything else stops the process. */
function addressList(env: Env, name: string): string[] {
  const entries = (env[name] ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const [address = '', prefix, extra] = entry.split('/');
    const family = isIP(address);
    const bits = family === 4 ? 32 : 128;
    const prefixValid = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits);
    if (family === 0 || !prefixValid || extra !== undefined) {
      throw new ConfigError(`${name} must be a comma list of IP addresses or CIDRs; got "${entry}".`);
    }
  }
  return entries;
}

function timeZone(env: Env, name: string): string {
  const raw = env[name]?.trim() || 'UTC';
  try {
    return new Intl.DateTimeFormat('en', { timeZone: raw }).resolvedOptions().timeZone;
  } catch {
    throw new ConfigError(`${name} must be an IANA time zone such as Europe/Berlin; got "${raw}".`);
  }
}

function withoutTrailingSlashes(value: string | undefined): string | undefined {
  let end = value?.length ?? 0;
  while (end > 0 && value?.[end - 1] === '/') end -= 1;
  return value?.slice(0, end);
}

/** Accepts 32 bytes as 64 hex characters or as base64/base64url. */
export function parseEncryptionKey(raw: string, name = 'LETHE_ENCRYPTION_KEY'): Buffer {
  const text = raw.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== 32) {
    throw new ConfigError(
      `${name} must be 32 bytes written as 64 hex characters or base64 (for example: openssl rand -hex 32).`,
    );
  }
  return key;
}

function oneOf<const T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!(allowed as readonly string[]).includes(raw))
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}.`);
  return raw as T;
}

/** LETHE_OIDC_ROLE_MAP: a JSON object from group to a role name or a list of role names. */
function roleMap(env: Env): Record<string, string[]> {
  const raw = env.LETHE_OIDC_ROLE_MAP?.trim();
  if (!raw) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError('LETHE_OIDC_ROLE_MAP must be JSON: {"<group>": "<role>" or ["<role>", ...]}.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError('LETHE_OIDC_ROLE_MAP must be a JSON object from group to role(s).');
  }
  const map: Record<string, string[]> = {};
  for (const [group, roles] of Object.entries(parsed)) {
    const list = typeof roles === 'string' ? [roles] : roles;
    if (
      !Array.isArray(list) ||
      list.length === 0 ||
      !list.every((role) => typeof role === 'string' && role)
    ) {
      throw new ConfigError(
        `LETHE_OIDC_ROLE_MAP: the group "${group}" must map to a role or a list of roles.`,
      );
    }
    map[group] = list as string[];
  }
  return map;
}

function oidcConfig(env: Env): OidcConfig | undefined {
  const issuer = url(env, 'LETHE_OIDC_ISSUER', ['https', 'http']);
  if (!issuer) return undefined;
  const clientId = env.LETHE_OIDC_CLIENT_ID?.trim();
  const clientSecret = env.LETHE_OIDC_CLIENT_SECRET;
  if (!clientId || !clientSecret) {
    throw new ConfigError('LETHE_OIDC_ISSUER needs LETHE_OIDC_CLIENT_ID and LETHE_OIDC_CLIENT_SECRET.');
  }
  return {
    issuer,
    clientId,
    clientSecret,
    redirectUrl: url(env, 'LETHE_OIDC_REDIRECT_URL', ['https', 'http']),
    rolesClaim: env.LETHE_OIDC_ROLES_CLAIM?.trim() || 'groups',
    roleMap: roleMap(env),
    name: env.LETHE_OIDC_NAME?.trim() || 'your identity provider',
    scopes: env.LETHE_OIDC_SCOPES?.trim() || 'openid email profile',
    clockSkewSeconds: 0,
  };
}

export function loadConfig(env: Env = process.env): Config {
  const rootId = env.LETHE_ROOT_CLIENT_ID || undefined;
  const rootSecret = env.LETHE_ROOT_CLIENT_SECRET || undefined;
  if ((rootId === undefined) !== (rootSecret === undefined)) {
    throw new ConfigError('LETHE_ROOT_CLIENT_ID and LETHE_ROOT_CLIENT_SECRET must be set together.');
  }
  if (rootSecret !== undefined && rootSecret.length < 16) {
    throw new ConfigError('LETHE_ROOT_CLIENT_SECRET must be at least 16 characters long.');
  }
  const metricsToken = env.LETHE_METRICS_TOKEN || undefined;
  if (metricsToken !== undefined && (metricsToken.length < 16 || /\s/.test(metricsToken))) {
    throw new ConfigError('LETHE_METRICS_TOKEN must be at least 16 characters long, without spaces.');
  }
  const host = env.HOST?.trim() || '127.0.0.1';
  return {
    port: integer(env, 'PORT', 8080, 0),
    host,
    databaseUrl: url(env, 'DATABASE_URL', ['postgres', 'postgresql']),
    dataDir: path.resolve(env.LETHE_DATA_DIR || '.lethe'),
    encryptionKey: env.LETHE_ENCRYPTION_KEY ? parseEncryptionKey(env.LETHE_ENCRYPTION_KEY) : undefined,
    rootClient: rootId && rootSecret ? { id: rootId, secret: rootSecret } : undefined,
    privacyRequestDelayTimeoutSeconds: integer(env, 'LETHE_PRIVACY_REQUEST_DELAY_TIMEOUT', 3600, 1),
    defaultTtlSeconds: integer(env, 'LETHE_DEFAULT_TTL_SECONDS', 604800, 1),
    taskMarginDays: integer(env, 'LETHE_TASK_MARGIN_DAYS', 5, 0),
    stuckAfterSeconds: integer(env, 'LETHE_STUCK_AFTER_SECONDS', 3600, 1),
    requireManualApproval: boolean(env, 'LETHE_REQUIRE_MANUAL_APPROVAL', false),
    allowInsecureWebhooks: boolean(env, 'LETHE_ALLOW_INSECURE_WEBHOOKS', false),
    webhookAllowedHosts: (env.LETHE_WEBHOOK_ALLOWED_HOSTS ?? '')
      .split(',')
      .map((entry) => entry.trim().toLowerCase())
      .filter(Boolean),
    webhookTimeoutMs: integer(env, 'LETHE_WEBHOOK_TIMEOUT_MS', 10000, 1),
    smtpUrl: url(env, 'LETHE_SMTP_URL', ['smtp', 'smtps']),
    redisUrl: url(env, 'LETHE_REDIS_URL', ['redis', 'rediss']),
    redisKeyPrefix: env.LETHE_REDIS_KEY_PREFIX?.trim() || 'lethe:',
    smtpFrom: env.LETHE_SMTP_FROM?.trim() || 'Lethe <lethe@localhost>',
    maxFileBytes: integer(env, 'LETHE_MAX_FILE_BYTES', 25 * 1024 * 1024, 1),
    trustProxy: addressList(env, 'LETHE_TRUST_PROXY'),
    authFailuresPerMinute: integer(env, 'LETHE_AUTH_FAILURES_PER_MINUTE', 10, 1),
    auditRetentionDays: integer(env, 'LETHE_AUDIT_RETENTION_DAYS', 0, 0),
    duplicateDetection: oneOf(env, 'LETHE_DUPLICATE_DETECTION', ['public', 'all', 'off'] as const, 'public'),
    requestRetentionDays: integer(env, 'LETHE_REQUEST_RETENTION_DAYS', 730, 1),
    accessTokenTtlSeconds: 3600,
    logLevel: env.LETHE_LOG_LEVEL?.trim() || 'info',
    jobPollingIntervalSeconds: 1,
    jobHeartbeatSeconds: integer(env, 'LETHE_WORKER_HEARTBEAT_SECONDS', 30, 10),
    jobSuperviseIntervalSeconds: 10,
    sweepIntervalSeconds: 30,
    stalledRequestSeconds: 120,
    workerConcurrency: integer(env, 'LETHE_WORKER_CONCURRENCY', 4, 1),
    webhookRetryDelayMs: 1000,
    metricsToken,
    publicRequestsPerMinute: integer(env, 'LETHE_PUBLIC_REQUESTS_PER_MINUTE', 10, 1),
    identityVerificationRequired: boolean(env, 'LETHE_SUBJECT_IDENTITY_VERIFICATION_REQUIRED', true),
    identityVerificationTtlSeconds: integer(env, 'LETHE_IDENTITY_VERIFICATION_TTL_SECONDS', 600, 1),
    publicErasureAutoApprove: boolean(env, 'LETHE_PUBLIC_ERASURE_AUTO_APPROVE', false),
    publicUrl: withoutTrailingSlashes(url(env, 'LETHE_PUBLIC_URL', ['http', 'https'])),
    defaultLanguage: oneOf(env, 'LETHE_DEFAULT_LANGUAGE', LANGUAGES, REFERENCE_LANGUAGE),
    accessPackageTtlSeconds: integer(env, 'LETHE_ACCESS_PACKAGE_TTL_SECONDS', 604800, 1),
    unverifiedRequestSeconds: 86400,
    passwordLogin: boolean(env, 'LETHE_PASSWORD_LOGIN', true),
    oidc: oidcConfig(env),
    outboxPollIntervalSeconds: 2,
    outboxRetryMaxSeconds: 300,
    dueSoonDays: integer(env, 'LETHE_DUE_SOON_DAYS', 7, 1),
    timeZone: timeZone(env, 'LETHE_TIME_ZONE'),
    deadlineTimeZone: env.LETHE_TIME_ZONE?.trim() ? timeZone(env, 'LETHE_TIME_ZONE') : null,
    digestHour: 8,
    eventPollIntervalSeconds: 1,
  };
}
