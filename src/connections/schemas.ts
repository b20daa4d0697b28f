// Shapes of the connection endpoints: what callers send and what they get back. The answer shapes carry
// masks in place of secrets; nothing here ever holds a secret value.
import Type from 'typebox';
import { named } from '../validation/schema-names.ts';
import { Nullable, ResourceKey } from '../validation/bulk.ts';
import { MAX_CALLBACK_HEADERS } from './callback-headers.ts';
import { MAX_SIGNING_GRACE_SECONDS } from './secrets.ts';

/** Shown in place of a stored secret. */
export const SECRET_MASK = '**********';

export const CONNECTION_FIELDS = ['name', 'key', 'connection_type', 'access', 'description'] as const;

export const ConnectionItem = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    key: ResourceKey,
    connection_type: Type.String({ minLength: 1, maxLength: 50 }),
    access: Type.Enum(['read', 'write']),
    description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  },
  { additionalProperties: false },
);
export type ConnectionItem = Type.Static<typeof ConnectionItem>;

export const ConnectionKeyParams = Type.Object({ connection_key: ResourceKey });

export const SecretsBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048 }),
    authorization: Type.Optional(Type.String({ minLength: 1, maxLength: 8192 })),
    headers: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        maxProperties: MAX_CALLBACK_HEADERS,
        description: `Extra headers sent with every callback of the connection (at most ${MAX_CALLBACK_HEADERS}); stored encrypted. They never replace a header Lethe sets.`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type SecretsBody = Type.Static<typeof SecretsBody>;

const oauthFields = {
  grant_type: Type.Enum(['client_credentials']),
  token_url: Type.String({ minLength: 1, maxLength: 2048 }),
  scope: Type.String({ maxLength: 2000 }),
  client_id: Type.String({ minLength: 1, maxLength: 500 }),
  client_secret: Type.String({ minLength: 1, maxLength: 8192 }),
};

export const OAuthBody = Type.Object(oauthFields, { additionalProperties: false });
export type OAuthBody = Type.Static<typeof OAuthBody>;

export const OAuthPatchBody = Type.Object(
  {
    grant_type: Type.Optional(oauthFields.grant_type),
    token_url: Type.Optional(oauthFields.token_url),
    scope: Type.Optional(oauthFields.scope),
    client_id: Type.Optional(oauthFields.client_id),
    client_secret: Type.Optional(oauthFields.client_secret),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type OAuthPatchBody = Type.Static<typeof OAuthPatchBody>;

const connectionViewFields = {
  key: Type.String(),
  name: Type.String(),
  connection_type: Type.String(),
  access: Type.String(),
  description: Nullable(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  secrets: Nullable(
    Type.Object({
      url: Type.String(),
      authorization: Nullable(Type.Literal(SECRET_MASK)),
      /** Present only when the connection has extra callback headers: their names, values masked. */
      headers: Type.Optional(Type.Record(Type.String(), Type.Literal(SECRET_MASK))),
    }),
  ),
  oauth: Nullable(
    Type.Object({
      grant_type: Type.String(),
      token_url: Type.String(),
      scope: Type.String(),
      client_id: Type.String(),
      client_secret: Type.Literal(SECRET_MASK),
    }),
  ),
  /** How many policy and pre-approval webhooks call through this connection. */
  webhooks_using: Type.Integer(),
  /** Whether callbacks through this connection are signed; the secret itself is shown only once. */
  has_signing_secret: Type.Boolean(),
};

export const ConnectionView = Type.Object(connectionViewFields);
named('Connection', ConnectionView);

export type ConnectionView = Type.Static<typeof ConnectionView>;

/** An item of the bulk upsert's `succeeded`: a newly created connection shows its signing secret this once. */
export const ConnectionUpsertView = Type.Object({
  ...connectionViewFields,
  signing_secret: Type.Optional(
    Type.String({
      description:
        'Only when this item created the connection: the secret its callbacks are signed with (Lethe-Signature). Shown once.',
    }),
  ),
});
export type ConnectionUpsertView = Type.Static<typeof ConnectionUpsertView>;

export const SigningSecretRotationBody = Type.Object(
  {
    grace_period_seconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_SIGNING_GRACE_SECONDS,
        description:
          'How long the previous secret keeps signing alongside the new one (a second v1 entry). Default 0: it stops at once.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type SigningSecretRotationBody = Type.Static<typeof SigningSecretRotationBody>;

export const SigningSecretAnswer = Type.Object({
  signing_secret: Type.String({
    description: 'The new signing secret. Shown once; it cannot be read again.',
  }),
  previous_secret_expires_at: Nullable(
    Type.String({
      format: 'date-time',
      description:
        'Until when callbacks also carry a signature by the previous secret; null when they do not.',
    }),
  ),
});
export type SigningSecretAnswer = Type.Static<typeof SigningSecretAnswer>;
