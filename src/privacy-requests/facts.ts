// The facts of a privacy request that the core and its lifecycle hooks share (src/privacy-requests/
// lifecycle.ts): the request's row as stored and its policy as embedded in the request's view. Types only,
// apart from the repository and the view, so that the hooks' signatures import no code of the core.
import type { Status } from './statuses.ts';

export interface RequestRow {
  id: string;
  external_id: string | null;
  status: Status;
  policy_id: string;
  client_id: string | null;
  submitted_by: string | null;
  origin: string | null;
  source: string | null;
  location: string | null;
  /** The language its subject reads (src/i18n/); null: LETHE_DEFAULT_LANGUAGE. */
  language: string | null;
  custom_fields: unknown[];
  /** Fides' [{data_use, opt_in}], as the request was made (src/consent/). */
  consent_preferences: { data_use: string; opt_in: boolean }[];
  /** The corrections asked for, sealed (src/corrections/sealing.ts). */
  corrections_sealed: Uint8Array | null;
  /** A completed erasure's recipients (the connections its post-execution webhooks told), else null. */
  recipients_notified: string[] | null;
  requested_at: Date;
  started_processing_at: Date | null;
  finished_processing_at: Date | null;
  reviewed_at: Date | null;
  reviewed_by: string | null;
  finalized_at: Date | null;
  finalized_by: string | null;
  identity_verified_at: Date | null;
  cancel_reason: string | null;
  /** Why it was canceled, as one of the codes of cancel.ts (migration 035); null before verification. */
  cancel_reason_code: string | null;
  canceled_at: Date | null;
  paused_at: Date | null;
  paused_step: number | null;
  error_reason: string | null;
  identity_sealed: Uint8Array | null;
  /** Values given on the public side that nobody proved (identity.ts); never matched. */
  unverified_identity_sealed: Uint8Array | null;
  /** While identity_unverified: the HMAC of the email the code goes to (outbox/recipient-caps.ts). */
  recipient_index: Uint8Array | null;
  identity_expires_at: Date;
  identity_purged_at: Date | null;
  next_step: number;
  /** The clock (migration 018, src/deadlines/): set at receipt, moved only by the one extension. */
  jurisdiction: string | null;
  due_at: Date | null;
  acknowledged_at: Date | null;
  /** When the receipt must be confirmed by (migration 027), where the jurisdiction sets a time. */
  acknowledge_due_at: Date | null;
  /** The refusal came after the law's time to refuse (GDPR art. 12(4)). */
  refused_late: boolean;
  extended_at: Date | null;
  extension_reason: string | null;
  denial_reason: string | null;
  duplicate_of: string | null;
  excessive: boolean;
}

export interface PolicyEmbed {
  id: string;
  name: string;
  key: string;
  drp_action: string | null;
  execution_timeframe: number;
  client_id: string | null;
  rules: {
    id: string;
    name: string;
    key: string;
    action_type: string;
    masking_strategy: { strategy: string; configuration: Record<string, unknown> } | null;
    storage_destination_id: string | null;
  }[];
}
