// Shapes of the privacy center's public side: the submission and the public view of a request (its
// settings are in privacy-center-settings/). Bounds keep every field small: these bodies
// come from anyone.
import Type from 'typebox';
import { AGENT_NAME_MAX_LENGTH } from '../agents/service.ts';
import { ConsentPreferences } from '../consent/schemas.ts';
import { Corrections } from '../corrections/schemas.ts';
import { E164_PATTERN } from '../privacy-requests/identity.ts';
import { MAX_EMAIL_LENGTH } from '../validation/email.ts';

const Strict = { additionalProperties: false } as const;

export const SubjectIdentity = Type.Object(
  {
    email: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_EMAIL_LENGTH })),
    phone_number: Type.Optional(Type.String({ minLength: 1, maxLength: 16, pattern: E164_PATTERN })),
  },
  Strict,
);
export type SubjectIdentity = Type.Static<typeof SubjectIdentity>;

export const PublicSubmission = Type.Object(
  {
    policy_key: Type.String({ minLength: 1, maxLength: 200 }),
    identity: SubjectIdentity,
    agent: Type.Optional(
      Type.Object(
        {
          name: Type.String({ minLength: 1, maxLength: AGENT_NAME_MAX_LENGTH }),
          email: Type.String({ minLength: 3, maxLength: MAX_EMAIL_LENGTH, format: 'email' }),
        },
        {
          ...Strict,
          description:
            "An authorized agent acting for the subject: the code goes to the agent's email, then the subject confirms the agent through a mailed link.",
        },
      ),
    ),
    location: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 10,
        description:
          "Where the subject lives, as ISO 3166: a country (ISO 3166-1 alpha-2, FR) or a subdivision (ISO 3166-2, US-CA). It decides the law whose clock the request runs on (GET /v1/jurisdiction); without it, the policy's jurisdiction. Not an ISO 3166 code: 422 naming it, nothing stored.",
      }),
    ),
    corrections: Type.Optional(Corrections),
    consent_preferences: Type.Optional(
      Type.Array(ConsentPreferences.items, {
        maxItems: 50,
        description:
          'For a policy that records consent. Left out: an opt-out of marketing.advertising ("Do not sell or share"). Opt-outs need no code; an opt-in needs the email verified.',
      }),
    ),
  },
  Strict,
);
export type PublicSubmission = Type.Static<typeof PublicSubmission>;

export const RequestStanding = Type.Object({ id: Type.String(), status: Type.String() });

export const PublicRequestView = Type.Object({
  id: Type.String(),
  status: Type.String(),
  stage: Type.Union(
    ['received', 'verified', 'in_progress', 'done', 'denied', 'canceled'].map((stage) => Type.Literal(stage)),
    { description: "where the request stands, in the subject's words" },
  ),
  action_title: Type.String(),
  requested_at: Type.String({ format: 'date-time' }),
  identity_verified: Type.Boolean(),
  awaiting_agent_confirmation: Type.Boolean({
    description: "an authorized agent's email is verified; the subject has yet to confirm the agent",
  }),
});

export const RequestIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });
