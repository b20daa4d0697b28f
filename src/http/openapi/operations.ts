// Names every operation: a stable camelCase operationId derived from the path and method (so generated
// client methods do not change when a summary does), a summary, one tag per domain, and a declared
// security (an empty list where the call is public). An id set in a route's schema wins.
import { type OpenApiDocument, type OpenApiOperation, operationsOf } from './document.ts';

/** The top-level tags, one per domain, in the order a reader meets them. */
export const TAGS: { name: string; description: string }[] = [
  { name: 'management auth', description: 'Clients and access tokens for the management API.' },
  { name: 'operators', description: 'Operator accounts (username and password) and their roles.' },
  {
    name: 'connections',
    description: 'HTTPS connections: the receivers webhooks call, their secrets and OAuth.',
  },
  { name: 'dsr policies', description: 'DSR policies and their rules (what a privacy request does).' },
  {
    name: 'webhooks',
    description: 'Ordered pre- and post-execution webhooks of a policy, and pre-approval webhooks.',
  },
  {
    name: 'privacy requests',
    description: 'Privacy requests: intake, approval, execution, resume, results.',
  },
  {
    name: 'manual systems',
    description: 'Systems without an API that a person answers for (docs/human-steps.md).',
  },
  {
    name: 'tasks',
    description: 'The human steps of privacy requests: the inbox, completing, skipping, assigning, inviting.',
  },
  {
    name: 'records',
    description: 'Records of requests and yearly metrics (CCPA regs §7101, §7102), with no identity value.',
  },
  {
    name: 'privacy center',
    description: 'The public privacy center: its settings and the requests it takes.',
  },
  {
    name: 'fides compatibility',
    description: "Fides' own paths under /api/v1, answering with Fides' shapes.",
  },
  { name: 'datastores', description: 'Area B control panel: datastores, maintenance mode, the audit log.' },
  { name: 'api keys', description: 'Area B API keys and their rate limits.' },
  {
    name: 'subject data',
    description: 'Area B subject data API: entities, attributes, files and subject rights.',
  },
  { name: 'outbox', description: 'Mail the service sent or will send.' },
  {
    name: 'event-subscriptions',
    description: "Receivers of Lethe's events (CloudEvents, Slack, Teams) and their delivery logs.",
  },
  { name: 'console', description: 'The operator console session.' },
  { name: 'operations', description: 'Health and metrics for whoever runs the service.' },
];

const VERBS: Record<string, string> = {
  get: 'get',
  post: 'create',
  put: 'replace',
  patch: 'update',
  delete: 'delete',
};

/**
 * Ids that read better than the derived ones (actions on a resource); each stays unique and stable.
 * Keyed by `METHOD path` as documented.
 */
const NAMED: Record<string, string> = {
  'POST /v1/oauth/token': 'createAccessToken',
  'POST /v1/privacy-request': 'createPrivacyRequests',
  'POST /v1/login': 'login',
  'POST /v1/privacy-request/{id}/resume': 'resumePrivacyRequest',
  'POST /v1/privacy-request/{id}/retry': 'retryPrivacyRequest',
  'POST /v1/privacy-request/{id}/cancel': 'cancelPrivacyRequest',
  'POST /v1/privacy-request/{id}/verify': 'verifyPrivacyRequest',
  'POST /v1/privacy-request/{id}/verify/resend': 'resendPrivacyRequestVerification',
  'POST /v1/privacy-request/{id}/pre-approve/eligible': 'markPrivacyRequestEligible',
  'POST /v1/privacy-request/{id}/pre-approve/not-eligible': 'markPrivacyRequestNotEligible',
  'PATCH /v1/privacy-request/administrate/approve': 'approvePrivacyRequests',
  'PATCH /v1/privacy-request/administrate/deny': 'denyPrivacyRequests',
  'POST /v1/privacy-request/{id}/extend': 'extendPrivacyRequest',
  'POST /v1/privacy-request/{id}/appeal/decide': 'decidePrivacyRequestAppeal',
  'POST /v1/privacy-center/appeal': 'submitPrivacyCenterAppeal',
  'GET /v1/jurisdiction': 'listJurisdictions',
  'GET /v1/event-type': 'listEventTypes',
  'GET /v1/report/requests.csv': 'exportRequestRecords',
  'GET /v1/report/metrics': 'getRequestMetrics',
  'POST /v1/connection/{connection_key}/signing-secret': 'rotateConnectionSigningSecret',
  'POST /v1/privacy-center/privacy-request': 'submitPrivacyCenterRequest',
};

const pascal = (text: string) =>
  text
    .split(/[^a-zA-Z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('');

function answersList(operation: OpenApiOperation): boolean {
  const media = operation.responses['200']?.content?.['application/json'];
  const schema = media?.schema as { type?: string; properties?: Record<string, unknown> } | undefined;
  return (
    schema?.type === 'array' || (schema?.properties?.items !== undefined && 'total' in schema.properties)
  );
}

/**
 * `GET /v1/privacy-request/{id}/log` -> getPrivacyRequestLog; a trailing parameter reads `By<Name>`; a GET
 * of a collection is `list`. Fides' paths (/api/v1) start with `fides`. Area B (/api/<noun>/<action>) is
 * named by its noun and action, its GET form ending in `ViaGet`.
 */
export function deriveOperationId(method: string, path: string, operation: OpenApiOperation): string {
  const named = NAMED[`${method.toUpperCase()} ${path}`];
  if (named) return named;
  const segments = path.split('/').filter(Boolean);
  if (segments[0] === 'api' && segments[1] !== 'v1') {
    const words = pascal(segments.slice(1).join(' '));
    return `${words[0]!.toLowerCase()}${words.slice(1)}${method === 'get' ? 'ViaGet' : ''}`;
  }
  let prefix = '';
  if (segments[0] === 'v1') segments.shift();
  else if (segments[0] === 'api' && segments[1] === 'v1') {
    segments.splice(0, 2);
    prefix = 'Fides';
  }
  const last = segments.at(-1) ?? '';
  const trailingParam = /^\{(.+)\}$/.exec(last)?.[1];
  const words = segments
    .filter((segment) => !segment.startsWith('{'))
    .map(pascal)
    .join('');
  const verb =
    method === 'get' && !trailingParam && answersList(operation) ? 'list' : (VERBS[method] ?? method);
  return `${verb}${prefix}${words}${trailingParam ? `By${pascal(trailingParam)}` : ''}`;
}

function sentence(id: string): string {
  const words = id.replace(/([A-Z])/g, ' $1').toLowerCase();
  return words[0]!.toUpperCase() + words.slice(1);
}

export function nameOperations(document: OpenApiDocument) {
  for (const { path, method, operation } of operationsOf(document)) {
    operation.operationId ??= deriveOperationId(method, path, operation);
    operation.summary ??= sentence(operation.operationId);
    operation.tags ??= ['operations'];
    operation.security ??= [];
  }
}
