// Shapes of the privacy-request endpoints. Identities are checked field by field in identity.ts (so that
// a message names the field and never the value); the rest here.
import Type from 'typebox';
import { actionInputs, fromRegistry } from '../actions/registry.ts';
import { named } from '../validation/schema-names.ts';
import { BulkBody, BulkResponse, Nullable, ResourceKey } from '../validation/bulk.ts';
import { PATTERN_HINT } from '../validation/messages.ts';
import { E164_PATTERN } from './identity.ts';
import { hooksOf } from './lifecycle.ts';
import { AccessPackageSchema } from './rules/access-package.ts';
import { STATUSES } from './statuses.ts';

/** Fields a failed item echoes back; never the identity. */
export const PRIVACY_REQUEST_FIELDS = ['policy_key', 'external_id', 'source', 'location'] as const;

const ShortText = Type.String({ minLength: 1, maxLength: 200 });

/**
 * The identities of a new request, as identity.ts checks them (it runs first, so that its sentences are the
 * ones a caller reads); this schema says the same for the OpenAPI description.
 */
const IdentityItem = Type.Object(
  {
    email: Type.Optional(Type.String({ format: 'email', example: 'ada@example.com' })),
    phone_number: Type.Optional(
      Type.String({
        pattern: E164_PATTERN,
        example: '+14155550123',
        [PATTERN_HINT]: 'be an E.164 phone number such as +14155550123',
      }),
    ),
  },
  {
    additionalProperties: Type.Object(
      {
        label: Type.String({ minLength: 1, maxLength: 200 }),
        value: Type.String({ minLength: 1, maxLength: 1000 }),
      },
      { additionalProperties: false },
    ),
    minProperties: 1,
    description:
      'At least one identity: `email`, `phone_number` (E.164) and custom identities `<name>: {label, value}` (names of letters, digits and _).',
  },
);

/** A request as the management API takes it; its fields beyond the identity come from the registries. */
export const privacyRequestItem = fromRegistry(() =>
  Type.Object(
    {
      identity: IdentityItem,
      policy_key: ResourceKey,
      external_id: Type.Optional(ShortText),
      source: Type.Optional(ShortText),
      location: Type.Optional(ShortText),
      // Each action type's input (consent_preferences, corrections) and each feature's receipt field (agent).
      ...Object.fromEntries(actionInputs().map(({ input }) => [input.field, Type.Optional(input.schema)])),
      ...Object.fromEntries(
        hooksOf('receipt').map((receipt) => [receipt.field, Type.Optional(receipt.schema)]),
      ),
      custom_fields: Type.Optional(
        Type.Array(
          Type.Object(
            {},
            {
              additionalProperties: true,
              description:
                'A field of your own, kept as sent and shown with the request (no personal values).',
            },
          ),
          { maxItems: 50 },
        ),
      ),
    },
    { additionalProperties: false },
  ),
);

export const createBody = fromRegistry(() => BulkBody(privacyRequestItem()));

const Timestamp = Type.String({ format: 'date-time' });
const NullableTimestamp = Nullable(Timestamp);
const NullableText = Nullable(Type.String());

const RuleEmbed = Type.Object({
  id: Type.String(),
  name: Type.String(),
  key: Type.String(),
  action_type: Type.String(),
  masking_strategy: Nullable(
    Type.Object({
      strategy: Type.String(),
      configuration: Type.Object({}, { additionalProperties: true }),
    }),
  ),
  storage_destination_id: NullableText,
});

const PolicyEmbed = Type.Object({
  id: Type.String(),
  name: Type.String(),
  key: Type.String(),
  drp_action: NullableText,
  execution_timeframe: Type.Integer(),
  client_id: NullableText,
  rules: Type.Array(RuleEmbed),
});

/** The seed's privacy_request object, as the callback body carries it. */
const privacyRequestFields = {
  id: Type.String({ description: 'pri_<uuid>' }),
  external_id: NullableText,
  status: Type.Enum([...STATUSES]),
  requested_at: Timestamp,
  started_processing_at: NullableTimestamp,
  finished_processing_at: NullableTimestamp,
  reviewed_at: NullableTimestamp,
  reviewed_by: NullableText,
  finalized_at: NullableTimestamp,
  finalized_by: NullableText,
  submitted_by: NullableText,
  custom_privacy_request_fields_approved_by: NullableText,
  custom_privacy_request_fields_approved_at: NullableTimestamp,
  identity_verified_at: NullableTimestamp,
  client_id: NullableText,
  origin: NullableText,
  policy_id: Type.String(),
  policy: PolicyEmbed,
  property_id: NullableText,
  cancel_reason: NullableText,
  cancel_reason_code: Type.Union(
    [Type.Enum(['subject_withdrew', 'duplicate', 'unverifiable']), Type.Null()],
    {
      description:
        'Why it was canceled (subject_withdrew, duplicate, unverifiable); required to cancel once verified or operator-made. A refusal is a denial, never a cancel.',
    },
  ),
  canceled_at: NullableTimestamp,
  consent_preferences: Type.Array(Type.Object({ data_use: Type.String(), opt_in: Type.Boolean() }), {
    description: "Fides' consent_preferences, as the request gave them (for a consent rule).",
  }),
  source: NullableText,
  paused_at: NullableTimestamp,
  due_date: Timestamp,
  days_left: Type.Integer(),
  custom_fields: Type.Array(Type.Object({}, { additionalProperties: true })),
  location: NullableText,
  recipients_notified: Nullable(
    Type.Array(Type.String(), {
      description:
        'A completed erasure: the connections its post-execution webhooks told (GDPR art. 19); null otherwise.',
    }),
  ),
};

const AppealView = Type.Object(
  {
    status: Type.Enum(['open', 'pending', 'upheld', 'reversed']),
    window_ends_at: Timestamp,
    submitted_at: NullableTimestamp,
    due_date: NullableTimestamp,
    statement: NullableText,
    decided_at: NullableTimestamp,
    decided_by: NullableText,
    decision_reason: NullableText,
  },
  {
    description:
      'The appeal of a denial (open: the link was sent; pending: the subject appealed and it must be decided by due_date).',
  },
);

export const PrivacyRequestView = Type.Object({
  ...privacyRequestFields,
  jurisdiction: Nullable(
    Type.String({
      description:
        'The built-in jurisdiction whose clock the request runs on (GET /v1/jurisdiction): from its location, else its policy; null when none applies.',
    }),
  ),
  acknowledged_at: Nullable(
    Type.String({ format: 'date-time', description: 'When the "request received" message was delivered.' }),
  ),
  acknowledge_due_at: Nullable(
    Type.String({
      format: 'date-time',
      description:
        'When the receipt must be confirmed (CCPA regs §7021(a): 10 business days); null where the law sets no time. A request not acknowledged by then is stuck.',
    }),
  ),
  refused_late: Type.Boolean({
    description: 'The denial came after the law’s time to refuse (GDPR art. 12(4): one month from receipt).',
  }),
  extended_at: NullableTimestamp,
  extension_reason: NullableText,
  denial_reason: NullableText,
  duplicate_of: Nullable(
    Type.String({ description: 'The open request this one duplicated; it was canceled for it.' }),
  ),
  excessive: Type.Boolean({
    description:
      'A third completed access request for one identity within 12 months: flagged for a person to decide, never refused by Lethe.',
  }),
  appeal: Nullable(AppealView),
  identity: Type.Object(
    {},
    {
      additionalProperties: true,
      description:
        'The trusted identities (given with a management token, proved by the mailed code, or derived by a two_way webhook, merged): the only ones matched against datastores; `{}` once purged.',
    },
  ),
  unverified_identity: Type.Object(
    {},
    {
      additionalProperties: true,
      description:
        'Identities given on the public side that nobody proved (a phone number; the email until its code is entered): shown to operators, never matched, sent to callbacks apart; `{}` when none or once purged.',
    },
  ),
  stuck: Type.Optional(
    Type.Boolean({
      description:
        'Approved or in_processing with no progress for LETHE_STUCK_AFTER_SECONDS, not acknowledged by acknowledge_due_at, or with an overdue task (docs/human-steps.md); given when a request is read or listed.',
    }),
  ),
  stuck_reason: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description:
        'Why it is stuck: not_acknowledged (the receipt not confirmed by acknowledge_due_at, CCPA regs §7021(a)), stalled (approved or in_processing with no progress for LETHE_STUCK_AFTER_SECONDS), task_overdue; null when it is not stuck. Given with stuck.',
    }),
  ),
});
named('PrivacyRequest', PrivacyRequestView);

export const CreateResponse = BulkResponse(PrivacyRequestView);

export const ListQuery = Type.Object({
  request_id: Type.Optional(Type.String({ maxLength: 100 })),
  status: Type.Optional(Type.Enum([...STATUSES])),
  external_id: Type.Optional(Type.String({ maxLength: 200 })),
  stuck: Type.Optional(Type.Boolean({ description: 'true: only stuck requests' })),
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
  size: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 50 })),
});

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

const RequestIds = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 50 });

export const ApproveBody = Type.Object({ request_ids: RequestIds }, { additionalProperties: false });
/** A reason the subject is told (a denial, an extension, an appeal's decision). */
export const Reason = Type.String({ minLength: 1, maxLength: 2000, pattern: '\\S' });

export const DenyBody = Type.Object(
  { request_ids: RequestIds, reason: Reason },
  { additionalProperties: false },
);

export const ExtendBody = Type.Object({ reason: Reason }, { additionalProperties: false });

/**
 * The cancel's body. The reason code is a plain string here so that the service answers a missing or
 * unknown code with one 422 sentence naming the three allowed (src/privacy-requests/cancel.ts).
 */
export const CancelBody = Type.Object(
  {
    reason: Type.Optional(Type.String({ maxLength: 1000 })),
    reason_code: Type.Optional(
      Type.String({
        maxLength: 100,
        description:
          'subject_withdrew, duplicate or unverifiable; required once the request is verified or operator-made. To refuse a request, deny it with a reason.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const AppealDecisionBody = Type.Object(
  { outcome: Type.Enum(['upheld', 'reversed']), reason: Reason },
  { additionalProperties: false },
);

export const ReviewResponse = BulkResponse(PrivacyRequestView);

export const ResumeBody = Type.Object(
  {
    derived_identity: Type.Optional(
      Type.Object(
        {
          email: Type.Optional(Type.String()),
          phone_number: Type.Optional(Type.String()),
          custom_identity: Type.Optional(
            Type.Object({ label: Type.String(), value: Type.String() }, { additionalProperties: false }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const PreApprovalBody = Type.Object(
  {},
  {
    additionalProperties: false,
    description: 'No fields: send `{}` or no body; the reply-to-token is the call.',
  },
);

export const ReplyAnswer = Type.Object({ privacy_request_id: Type.String(), status: Type.String() });

/** The resume answer: the privacy request as Fides answers it (no identities), plus its id under Lethe's name. */
export const ResumeAnswer = Type.Object({ privacy_request_id: Type.String(), ...privacyRequestFields });

export const LogEntryView = Type.Object({
  time: Timestamp,
  kind: Type.Enum(['transition', 'webhook', 'rules', 'note']),
  from_status: NullableText,
  to_status: NullableText,
  webhook_key: NullableText,
  timing: Nullable(Type.Enum(['pre_approval', 'pre', 'post'])),
  direction: NullableText,
  target_host: NullableText,
  http_status: Nullable(Type.Integer()),
  duration_ms: Nullable(Type.Integer()),
  attempt: Nullable(Type.Integer()),
  error: NullableText,
  message: NullableText,
  details: Type.Unknown(),
});
named('PrivacyRequestLogEntry', LogEntryView);

/** The access package of a completed access request, as the access rules stored it. */
export const AccessResults = named('AccessPackage', AccessPackageSchema);
