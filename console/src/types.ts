// The shapes the management API answers, as the console reads them. Secrets never appear here: the API
// answers masks, and the console only ever sends secrets, it never holds them in these types.

export interface ConsoleSession {
  client_id: string;
  /** The operator signed in with a username and password; null for a management client. */
  username: string | null;
  scopes: string[];
  privacy_request_delay_timeout_seconds: number;
  require_manual_approval: boolean;
}

export interface Connection {
  key: string;
  name: string;
  connection_type: string;
  access: string;
  description: string | null;
  created_at: string;
  updated_at: string;
  secrets: { url: string; authorization: string | null } | null;
  oauth: { grant_type: string; token_url: string; scope: string; client_id: string } | null;
  webhooks_using: number;
  /** Whether callbacks through it carry a Lethe-Signature; the secret itself is shown once only. */
  has_signing_secret?: boolean;
}

/** A connection as PATCH /v1/connection answers it: a created one shows its signing secret once. */
export interface UpsertedConnection extends Connection {
  signing_secret?: string;
}

/** POST /v1/connection/{key}/signing-secret: the new secret, shown once. */
export interface SigningSecretRotation {
  signing_secret: string;
  previous_secret_expires_at: string | null;
}

export interface Rule {
  id: string;
  name: string;
  key: string;
  action_type: string;
  masking_strategy: { strategy: string; configuration: Record<string, unknown> } | null;
  storage_destination_key: string | null;
  targets: string[];
}

export interface Policy {
  id: string;
  name: string;
  key: string;
  drp_action: string | null;
  execution_timeframe: number;
  rules: Rule[];
}

export type Direction = 'one_way' | 'two_way';

export interface Webhook {
  key: string;
  name: string;
  direction?: Direction;
  order: number;
  connection_config_key: string;
}

export interface Datastore {
  name: string;
  description: string | null;
  created_at: string;
  /** Exact up to the service's cap; `entity_count_capped` says there are more. */
  entity_count?: number;
  entity_count_capped?: boolean;
}

export interface ApiKey {
  id: string;
  name: string;
  datastores: string[];
  rate_limit_per_minute: number | null;
  created_at: string;
}

export interface IssuedApiKey extends ApiKey {
  key: string;
}

export interface AuditEntry {
  seq: number;
  at: string;
  action: string;
  datastore: string | null;
  entity_ids: string[];
  actor: string;
  request_id: string | null;
  details: Record<string, unknown>;
  recipient?: string;
}

export interface IdentityValue {
  label?: string;
  value?: string;
}

export interface PrivacyRequest {
  id: string;
  external_id: string | null;
  status: string;
  requested_at: string;
  started_processing_at: string | null;
  finished_processing_at: string | null;
  reviewed_at: string | null;
  reviewed_by: string | null;
  finalized_at?: string | null;
  paused_at: string | null;
  due_date: string | null;
  days_left: number | null;
  policy_id: string;
  policy?: { key: string; name: string; rules?: { action_type: string }[] } | null;
  identity?: Record<string, string | IdentityValue | null> | null;
  /** Identities given on the public side that nobody proved: never matched against datastores. */
  unverified_identity?: Record<string, string | IdentityValue | null> | null;
  cancel_reason?: string | null;
  canceled_at?: string | null;
  identity_verified_at?: string | null;
  source?: string | null;
}

/** One line of a request's log: a transition, a webhook call, the rules' run or a note. */
export interface RequestLogEntry {
  time: string;
  kind: 'transition' | 'webhook' | 'rules' | 'note';
  from_status: string | null;
  to_status: string | null;
  webhook_key: string | null;
  timing: 'pre_approval' | 'pre' | 'post' | null;
  direction: string | null;
  target_host: string | null;
  http_status: number | null;
  duration_ms: number | null;
  attempt: number | null;
  error: string | null;
  message: string | null;
  /** For `rules` entries: the run's summary (access package and erasure counts). */
  details?: unknown;
}

export interface Operator {
  username: string;
  roles: string[];
  created_by: string;
  created_at: string;
}

export interface ManagementClient {
  client_id: string;
  name: string;
  scopes: string[];
  created_at: string;
}

/** GET /v1/oauth/scopes: a scope and what it allows, in the service's order. */
export interface ScopeDescription {
  scope: string;
  description: string;
}

/** GET /v1/masking/strategy: a masking strategy of the service's registry. */
export interface MaskingStrategy {
  name: string;
  description: string;
  configurations: { key: string; optional: boolean; description: string }[];
}

/** GET /v1/datastore/{name}/entity: an entity with its attribute names, never a value. */
export interface BrowsedEntity {
  id: string;
  name: string;
  created_at: string;
  parents: string[];
  attributes: { name: string; has_value: boolean }[];
  files: { name: string; size: number }[];
}

/** GET /v1/datastore/{name}/entity/{id}: the values asked for (the reveal is audited). */
export interface RevealedEntity {
  id: string;
  name: string;
  attributes: { name: string; value: string | null }[];
  files: { name: string; file_name: string; content_type: string; size: number }[];
}
